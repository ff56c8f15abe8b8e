package dev.quiver.tools.nav;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.quiver.api.Arguments;
import dev.quiver.workspace.ToolTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every supported language, on real files holding what each language declares in its own way: nested
 * members, overloads, generics, decorators, a Go method on a receiver, a Rust impl block, TSX. The
 * outline shows the structure; find_symbol finds the declarations and never a use.
 */
class LanguagesTest {

    @TempDir
    Path root;

    private ToolTestContext context;

    @BeforeEach
    void open() throws Exception {
        context = new ToolTestContext(root);
    }

    private void write(String path, String text) throws Exception {
        Files.createDirectories(root.resolve(path).getParent());
        Files.writeString(root.resolve(path), text);
    }

    private String outline(String path) throws Exception {
        return new OutlineTool().call(Arguments.of(Map.of("path", path)), context).text();
    }

    private String find(Map<String, Object> arguments) throws Exception {
        return new FindSymbolTool().call(Arguments.of(arguments), context).text();
    }

    @Test
    void javaNestedMembersOverloadsGenericsAndConstants() throws Exception {
        write("src/Shapes.java", """
                package demo;

                /** Shapes. */
                public class Shapes<T extends Number> {
                    public static final int SIDES = 4;
                    private int count;

                    public Shapes() {
                    }

                    public <R> R area(T width) {
                        Shapes<T> area = null; // a use, not a declaration
                        return null;
                    }

                    public double area(T width, T height) {
                        return 0;
                    }

                    interface Visitor {
                        void visit(Shapes<?> shapes);
                    }

                    enum Colour { RED, GREEN }

                    record Point(int x, int y) {
                        double length() { return Math.hypot(x, y); }
                    }
                }
                """);
        String outline = outline("src/Shapes.java");
        assertEquals("""
                [src/Shapes.java: Java, 12 declarations]
                class Shapes 4-29
                  constant SIDES 5-5
                  method Shapes 8-9
                  method area 11-14 — public <R> R area(T width) {
                  method area 16-18 — public double area(T width, T height) {
                  interface Visitor 20-22
                    method visit 21-21
                  enum Colour 24-24
                    constant RED 24-24
                    constant GREEN 24-24
                  class Point 26-28
                    method length 27-27""", outline);
        String found = find(Map.of("name", "area"));
        assertEquals("""
                src/Shapes.java:11: method Shapes.area — public <R> R area(T width) {
                src/Shapes.java:16: method Shapes.area — public double area(T width, T height) {""", found);
        assertTrue(find(Map.of("name", "count")).startsWith("No definition of count"), "a plain field is no constant");
        assertEquals("src/Shapes.java:27: method Shapes.Point.length — double length() { return Math.hypot(x, y); }",
                find(Map.of("name", "Point.length")));
    }

    @Test
    void pythonDecoratorsMethodsAndConstants() throws Exception {
        write("app/service.py", """
                import functools

                MAX_RETRIES = 3
                retries = 0


                def cached(fn):
                    return functools.lru_cache(fn)


                class Service:
                    TIMEOUT = 10

                    @staticmethod
                    @cached
                    def build(name):
                        def inner():
                            return name
                        return inner

                    async def run(self):
                        build("x")
                """);
        assertEquals("""
                [app/service.py: Python, 6 declarations]
                constant MAX_RETRIES 3-3
                function cached 7-8
                class Service 11-22
                  constant TIMEOUT 12-12
                  method build 14-19
                  method run 21-22""", outline("app/service.py"));
        assertEquals("app/service.py:16: method Service.build — def build(name):", find(Map.of("name", "build")));
        assertTrue(find(Map.of("name", "inner")).startsWith("No definition"), "a function's local is not listed");
    }

    @Test
    void goFunctionsMethodsOnReceiversTypesAndConstants() throws Exception {
        write("pkg/stack.go", """
                package pkg

                const (
                	Limit = 10
                	other = 2
                )

                type Stack[T any] struct {
                	items []T
                }

                type Pusher interface {
                	Push(v int)
                }

                type ID = string

                func (s *Stack[T]) Push(v T) {
                	s.items = append(s.items, v)
                }

                func New() *Stack[int] { return &Stack[int]{} }
                """);
        assertEquals("""
                [pkg/stack.go: Go, 8 declarations]
                constant Limit 4-4
                constant other 5-5
                struct Stack 8-10
                interface Pusher 12-14
                  method Push 13-13
                type ID 16-16
                method Push 18-20
                function New 22-22""", outline("pkg/stack.go"));
        assertEquals("pkg/stack.go:18: method Stack.Push — func (s *Stack[T]) Push(v T) {",
                find(Map.of("name", "Stack.Push")));
    }

    @Test
    void rustImplBlocksTraitsAndModules() throws Exception {
        write("src/lib.rs", """
                pub const MAX: usize = 8;

                pub struct Buffer<T> {
                    items: Vec<T>,
                }

                pub trait Sink {
                    fn put(&mut self, byte: u8);
                    fn flush(&mut self) {}
                }

                impl<T: Clone> Buffer<T> {
                    pub fn new() -> Self {
                        Buffer { items: Vec::new() }
                    }
                }

                mod inner {
                    pub fn helper() {}
                }

                pub enum Mode { Fast, Slow }
                """);
        assertEquals("""
                [src/lib.rs: Rust, 10 declarations]
                constant MAX 1-1
                struct Buffer 3-5
                trait Sink 7-10
                  method put 8-8
                  method flush 9-9
                impl Buffer 12-16
                  method new 13-15
                module inner 18-20
                  function helper 19-19
                enum Mode 22-22""", outline("src/lib.rs"));
        assertEquals("src/lib.rs:13: method Buffer.new — pub fn new() -> Self {", find(Map.of("name", "Buffer.new")));
        assertEquals("src/lib.rs:3: struct Buffer — pub struct Buffer<T> {", find(Map.of("name", "Buffer")),
                "the impl block is a place, not a second definition");
    }

    @Test
    void javascriptAndTypescriptDeclarations() throws Exception {
        write("web/util.js", """
                export function debounce(fn, ms) { return fn; }
                export const API_URL = "https://example.invalid";
                const handler = () => 1;
                let counter = 0;
                class Store {
                  get(key) { return key; }
                  static create() { return new Store(); }
                }
                """);
        assertEquals("""
                [web/util.js: JavaScript, 6 declarations]
                function debounce 1-1
                constant API_URL 2-2
                function handler 3-3
                class Store 5-8
                  method get 6-6
                  method create 7-7""", outline("web/util.js"));
        write("web/model.ts", """
                export interface User<T> {
                  id: T;
                  rename(name: string): void;
                }
                export type Id = string;
                export enum Role { Admin, Guest }
                export abstract class Repo<T> {
                  abstract find(id: Id): T;
                  save(item: T): void {}
                }
                export function load(id: Id): User<Id>;
                export function load(id: Id): User<Id> { return null as any; }
                namespace Legacy { export function old() {} }
                """);
        assertEquals("""
                [web/model.ts: TypeScript, 11 declarations]
                interface User 1-4
                  method rename 3-3
                type Id 5-5
                enum Role 6-6
                class Repo 7-10
                  method find 8-8
                  method save 9-9
                function load 11-11 — export function load(id: Id): User<Id>;
                function load 12-12 — export function load(id: Id): User<Id> { return null as any; }
                module Legacy 13-13
                  function old 13-13""", outline("web/model.ts"));
    }

    /**
     * TSX with the TSX grammar: a type assertion-looking {@code <T,>} generic, JSX with braces in
     * attributes and children, and components used in JSX, which are uses, not definitions. The plain
     * TypeScript grammar meets errors on this file; a clean parse is what says the right grammar read it.
     */
    @Test
    void tsxComponentsInterfacesTypesAndClassesAreDefinitionsAndJsxUsesAreNot() throws Exception {
        write("ui/Panel.tsx", """
                import React from "react";

                export interface PanelProps {
                  title: string;
                  onClose(): void;
                }

                export type Size = "small" | "large";

                export function Panel({ title, onClose }: PanelProps) {
                  return (
                    <section className={title ? "panel" : "empty"} onClick={() => onClose()}>
                      <Badge label={`${title}!`} size={"small" as Size} />
                      {title.length > 3 && <span style={{ color: "red" }}>{title}</span>}
                    </section>
                  );
                }

                export const Badge = ({ label }: { label: string; size: Size }) => <b data-x={label}>{label}</b>;

                const pick = <T,>(items: T[]): T => items[0];

                export class Store<T> {
                  render(): JSX.Element {
                    return <Panel title="store" onClose={() => {}} />;
                  }
                }
                """);
        assertEquals("""
                [ui/Panel.tsx: TSX, 8 declarations]
                interface PanelProps 3-6
                  method onClose 5-5
                type Size 8-8
                function Panel 10-17
                function Badge 19-19
                function pick 21-21
                class Store 23-27
                  method render 24-26""", outline("ui/Panel.tsx"));
        assertEquals("ui/Panel.tsx:10: function Panel — export function Panel({ title, onClose }: PanelProps) {",
                find(Map.of("name", "Panel")), "the <Panel .../> in render is a use");
        assertEquals("ui/Panel.tsx:19: function Badge — export const Badge = ({ label }: { label: string; size: Size }) "
                + "=> <b data-x={label}>{label}</b>;", find(Map.of("name", "Badge")), "the <Badge .../> in Panel is a use");
        assertEquals("ui/Panel.tsx:3: interface PanelProps — export interface PanelProps {", find(Map.of("name", "PanelProps")));
        assertEquals("ui/Panel.tsx:8: type Size — export type Size = \"small\" | \"large\";", find(Map.of("name", "Size")));
        assertEquals("ui/Panel.tsx:24: method Store.render — render(): JSX.Element {", find(Map.of("name", "Store.render")));
        assertEquals("ui/Panel.tsx:21: function pick — const pick = <T,>(items: T[]): T => items[0];",
                find(Map.of("name", "pick")));
        String panel = new ReadSymbolTool().call(Arguments.of(Map.of("name", "Panel", "path", "ui/Panel.tsx")), context).text();
        assertEquals("""
                [ui/Panel.tsx:10-17: function Panel]
                10: export function Panel({ title, onClose }: PanelProps) {
                11:   return (
                12:     <section className={title ? "panel" : "empty"} onClick={() => onClose()}>
                13:       <Badge label={`${title}!`} size={"small" as Size} />
                14:       {title.length > 3 && <span style={{ color: "red" }}>{title}</span>}
                15:     </section>
                16:   );
                17: }""", panel);
        assertTrue(find(Map.of("name", "Panel", "include", "**/*.ts")).startsWith("No definition of Panel"),
                "a .tsx file is not a .ts one for include");
    }

    /** A .ts file keeps the TypeScript grammar, in which {@code <string>value} is a type assertion, not JSX. */
    @Test
    void typescriptFilesKeepTheGrammarWhereAnglesAreTypeAssertions() throws Exception {
        write("web/cast.ts", """
                export function width(value: unknown): number {
                  return (<string>value).length;
                }
                export const HEIGHT = <number>(<unknown>"4");
                """);
        assertEquals("""
                [web/cast.ts: TypeScript, 2 declarations]
                function width 1-3
                constant HEIGHT 4-4""", outline("web/cast.ts"));
    }
}
