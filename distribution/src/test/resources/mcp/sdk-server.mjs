// An MCP server made with the official TypeScript SDK, for the client end-to-end tests.
// Usage: node sdk-server.mjs stdio [MARKER_FILE]   serves on stdin and stdout; touches MARKER_FILE when started
//        node sdk-server.mjs sse|http              serves on 127.0.0.1 (a free port), printing "listening PORT"
// Tools: echo {text} answers "<transport> echo: <text>"; env {name} answers the value of an environment
// variable of this process, or "(unset)". Over HTTP every request is logged on stderr as "request METHOD PATH".
import fs from "node:fs";
import http from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

const [mode, marker] = process.argv.slice(2);

const server = () => {
  const made = new McpServer({ name: "ts-sdk-test-server", version: "1.0.0" });
  made.registerTool("echo", { description: "Says the text back.", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text: `${mode} echo: ${text}` }] }));
  made.registerTool("env", { description: "The value of an environment variable.", inputSchema: { name: z.string() } },
    async ({ name }) => ({ content: [{ type: "text", text: process.env[name] ?? "(unset)" }] }));
  return made;
};

if (mode === "stdio") {
  if (marker) fs.writeFileSync(marker, "started\n");
  await server().connect(new StdioServerTransport());
} else {
  const sse = new Map();
  const streams = new Map();
  const body = (req) => new Promise((resolve) => {
    let data = "";
    req.on("data", (chunk) => { data += chunk; });
    req.on("end", () => resolve(data ? JSON.parse(data) : undefined));
  });
  const listener = http.createServer(async (req, res) => {
    console.error(`request ${req.method} ${req.url.split("?")[0]}`);
    if (mode === "sse" && req.method === "GET" && req.url === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      sse.set(transport.sessionId, transport);
      res.on("close", () => sse.delete(transport.sessionId));
      await server().connect(transport);
    } else if (mode === "sse" && req.method === "POST" && req.url.startsWith("/messages")) {
      const id = new URL(req.url, "http://x").searchParams.get("sessionId");
      const transport = sse.get(id);
      if (!transport) { res.writeHead(404).end(); return; }
      await transport.handlePostMessage(req, res, await body(req));
    } else if (mode === "http" && req.url === "/mcp") {
      const parsed = req.method === "POST" ? await body(req) : undefined;
      let transport = streams.get(req.headers["mcp-session-id"]);
      if (!transport) {
        transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => streams.set(id, transport) });
        await server().connect(transport);
      }
      await transport.handleRequest(req, res, parsed);
    } else {
      res.writeHead(404).end();
    }
  });
  listener.listen(0, "127.0.0.1", () => console.log(`listening ${listener.address().port}`));
}
