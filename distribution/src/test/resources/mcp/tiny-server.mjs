// A small MCP server for the client's end-to-end tests, without any SDK: JSON-RPC lines over stdio.
// Tools: echo {text}, crash (the process dies mid-call). With an argument "broken" it exits at once.
import readline from "node:readline";

if (process.argv[2] === "broken") {
  process.stderr.write("tiny server: no such database\n");
  process.exit(4);
}
const tools = [
  { name: "echo", description: "Echoes its text.", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  { name: "crash", description: "Dies in the middle of the call.", inputSchema: { type: "object", properties: {} } },
];
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.id === undefined || !message.method) return;
  const { id, method, params } = message;
  if (method === "initialize") {
    send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "tiny", version: "1" } } });
  } else if (method === "tools/list") {
    send({ id, result: { tools } });
  } else if (method === "tools/call" && params.name === "echo") {
    send({ id, result: { content: [{ type: "text", text: "echo: " + params.arguments.text }] } });
  } else if (method === "tools/call" && params.name === "crash") {
    process.stderr.write("tiny server: crashing on purpose\n");
    process.exit(5);
  } else if (method === "ping") {
    send({ id, result: {} });
  } else {
    send({ id, error: { code: -32601, message: "Method not found: " + method } });
  }
});
