// Drives `lore mcp` with the official MCP TypeScript SDK's client over
// stdio: lists the tools, then calls each. Prints one JSON line per step
// on stdout for TestTypeScriptClient to check.
//
// usage: node client.mjs LORE_BINARY REPOSITORY
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [lore, repo] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: lore, args: ["mcp"], cwd: repo, env: process.env, stderr: "inherit" });
const client = new Client({ name: "lore-ts-test", version: "1.0.0" });
await client.connect(transport);

const say = (step, value) => console.log(JSON.stringify({ step, ...value }));
const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");

const listed = await client.listTools();
say("tools", { names: listed.tools.map((t) => t.name).sort(), chars: JSON.stringify(listed).length });

const calls = [
  ["add_memory", { content: "The integration tests need the fake S3 server on port 9000.", type: "fix", tags: ["s3", "tests"] }],
  ["add_knowledge", { title: "Release checklist", body: "Tag, build, publish the checksums.", tags: ["release"] }],
  ["add_learning", { body: "Start the S3 fake before the upload tests or they hang.", category: "pitfall", tags: ["s3"] }],
  ["ingest", { output: "<journal>Started the S3 fake first; the upload tests pass.</journal>\n<task-done>T-3</task-done>", run: "run-00000ts1", files: ["src/upload.ts"], duration_secs: 3 }],
  ["search", { query: "fake S3", limit: 3 }],
  ["prime", { title: "Fix the flaky upload tests", task_id: "T-4" }],
  ["add_memory", { content: "the deploy key is ghp_Q3vW8kZr1TbX6nLp0YcJ5mHs2GdF9aEuRi7o" }],
  ["show", { id: "mem-1000000000-dead" }],
];
let memory = "";
for (const [name, args] of calls) {
  const res = await client.callTool({ name, arguments: args });
  if (name === "add_memory" && !res.isError) memory = res.structuredContent.id;
  say(name, { isError: !!res.isError, text: text(res), structured: res.structuredContent ?? null });
}
const shown = await client.callTool({ name: "show", arguments: { id: memory } });
say("show-added", { isError: !!shown.isError, text: text(shown) });
// A memory the test wrote before, whose cited file changed since.
const stale = await client.callTool({ name: "search", arguments: { query: "sessions cookies", limit: 3 } });
say("search-stale", { isError: !!stale.isError, text: text(stale), structured: stale.structuredContent ?? null });
const primed = await client.callTool({ name: "prime", arguments: { title: "Sessions and cookies" } });
say("prime-stale", { isError: !!primed.isError, text: text(primed) });
await client.close();
