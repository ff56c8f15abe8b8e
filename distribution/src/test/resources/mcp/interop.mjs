// Drives `quiver mcp` with the official TypeScript SDK client, as an MCP host nobody here wrote would.
// Usage: node interop.mjs stdio QUIVER WORKSPACE DEPLOYED_JAR STASHED_JAR
//        node interop.mjs http URL TOKEN
// Prints one JSON report on stdout; the Java test asserts on it.
import fs from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, ...args] = process.argv.slice(2);
const report = { elicitations: [], listChanged: 0 };
const text = (result) => (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
const waitFor = async (condition, millis) => {
  const end = Date.now() + millis;
  while (!condition()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
};

const client = new Client({ name: "quiver-interop-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { report.listChanged++; });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  report.elicitations.push(request.params.message);
  return { action: "accept", content: { decision: "once" } };
});

let transport;
if (mode === "stdio") {
  const [quiver, workspace] = args;
  transport = new StdioClientTransport({ command: quiver, args: ["mcp", "--workspace", workspace], cwd: workspace,
    env: { ...process.env }, stderr: "inherit" });
} else {
  const [url, token] = args;
  report.unauthorized = (await fetch(url, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) })).status;
  transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
}

await client.connect(transport);
report.server = client.getServerVersion();
report.tools = (await client.listTools()).tools.map((t) => t.name);
const read = await client.callTool({ name: "read_file", arguments: { path: "README.md" } });
report.read = { isError: read.isError === true, text: text(read) };
const guarded = await client.callTool({ name: "bash", arguments: { command: "rm -rf src" } });
report.guarded = { isError: guarded.isError === true, text: text(guarded) };
const invalid = await client.callTool({ name: "read_file", arguments: { path: 42 } });
report.invalid = { isError: invalid.isError === true, text: text(invalid) };
const approved = await client.callTool({ name: "bash", arguments: { command: "touch approved-" + mode + ".txt" } });
report.approved = { isError: approved.isError === true, text: text(approved) };

if (mode === "stdio") {
  const [, , deployed, stashed] = args;
  fs.renameSync(deployed, stashed); // FileInstall uninstalls the tool bundle
  report.sawListChanged = await waitFor(() => report.listChanged > 0, 30000);
  report.toolsAfterRemoval = (await client.listTools()).tools.map((t) => t.name);
  fs.renameSync(stashed, deployed); // and installs it again
  const before = report.listChanged;
  report.sawListChangedAgain = await waitFor(() => report.listChanged > before, 30000);
  report.toolsAfterReturn = (await client.listTools()).tools.map((t) => t.name);
}
await client.close();
process.stdout.write(JSON.stringify(report) + "\n");
process.exit(0);
