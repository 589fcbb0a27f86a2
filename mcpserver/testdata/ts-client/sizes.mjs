// Drives `lore mcp` with the official MCP TypeScript SDK's client through
// calls of every size: 10,000 tags or files, a body of 10 MB (more than
// lore-mcp reads in one message), then a search to show it still serves.
// Prints one JSON line per call for TestTypeScriptClientSizes: whether it
// was a tool error, its text, or what the SDK threw.
//
// usage: node sizes.mjs LORE_BINARY REPOSITORY
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [lore, repo] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: lore, args: ["mcp"], cwd: repo, env: process.env, stderr: "inherit" });
const client = new Client({ name: "lore-ts-sizes", version: "1.0.0" });
await client.connect(transport);

const tags = Array.from({ length: 10000 }, (_, i) => `tag${i}`);
const files = Array.from({ length: 10000 }, (_, i) => `src/pkg${i}/file.ts`);
const tenMB = "x".repeat(10 << 20);
const calls = [
  ["add_memory 10k tags", "add_memory", { content: "ten thousand tags", tags }],
  ["ingest 10k files", "ingest", { output: "<journal>Touched many files.</journal>\n<task-done>T-1</task-done>", run: "run-00005e1e", files }],
  ["prime 10k files", "prime", { title: "a task about many files", files }],
  ["search 10k tags", "search", { query: "tags", tags }],
  ["add_memory 10 MB", "add_memory", { content: tenMB }],
  ["search after", "search", { query: "ten thousand tags" }],
];
for (const [step, name, args] of calls) {
  try {
    const res = await client.callTool({ name, arguments: args });
    const text = res.content.filter((c) => c.type === "text").map((c) => c.text).join("");
    console.log(JSON.stringify({ step, isError: !!res.isError, text: text.slice(0, 500) }));
  } catch (e) {
    console.log(JSON.stringify({ step, thrown: String(e) }));
  }
}
await client.close();
