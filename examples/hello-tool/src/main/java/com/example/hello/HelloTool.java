package com.example.hello;

import dev.quiver.api.*;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.osgi.service.component.annotations.Component;

/** Writes a greeting to hello.txt. A write tool asks first, unless its bundle is trusted: it asks to be auto-approved. */
@Component(property = {Tool.NAME + "=hello", Tool.ACCESS + "=write", Tool.AUTO_APPROVE + "=true"})
public class HelloTool implements Tool {
    @Override
    public ToolSpec spec() {
        return new ToolSpec("hello", "Write a greeting for someone to hello.txt in the workspace.",
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}");
    }

    @Override
    public List<Subject> subjects(Arguments arguments) {
        return List.of(Subject.path("hello.txt"));
    }

    @Override
    public ToolResult call(Arguments arguments, ToolContext context) throws ToolException {
        String greeting = "Hello, " + arguments.string("name") + "!\n";
        try {
            context.workspace().write(context.workspace().resolve("hello.txt"), greeting.getBytes(StandardCharsets.UTF_8));
        } catch (java.io.IOException e) {
            throw new ToolException("Cannot write hello.txt: " + e.getMessage());
        }
        return ToolResult.of("Wrote hello.txt: " + greeting.strip());
    }
}
