// Times lore mcp's tool calls from the official MCP TypeScript SDK's
// client over stdio: N searches and N add_memory calls, alternating, on
// the store of REPOSITORY. Prints the median and p90 of each, in ms.
// Not a test: for BENCHMARKS.md and issue notes.
//
// usage: node latency.mjs LORE_BINARY REPOSITORY [N]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [lore, repo, n = "30"] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: lore, args: ["mcp"], cwd: repo, env: process.env, stderr: "inherit" });
const client = new Client({ name: "lore-latency", version: "1.0.0" });
await client.connect(transport);
const times = { search: [], add_memory: [] };
for (let i = 0; i < Number(n) + 2; i++) {
  for (const [name, args] of [
    ["search", { query: "bamebi chotrikou", limit: 5 }],
    ["add_memory", { content: `Latency probe number ${i} of the MCP server's writes.`, type: "context", tags: ["probe"] }],
  ]) {
    const start = performance.now();
    const res = await client.callTool({ name, arguments: args });
    const ms = performance.now() - start;
    if (res.isError) throw new Error(`${name}: ${JSON.stringify(res.content)}`);
    if (i >= 2) times[name].push(ms); // two warm-up rounds
  }
}
await client.close();
const q = (xs, p) => xs.slice().sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))];
for (const [name, xs] of Object.entries(times)) {
  console.log(`${name}\tmedian ${q(xs, 0.5).toFixed(1)} ms\tp90 ${q(xs, 0.9).toFixed(1)} ms\t(${xs.length} calls)`);
}
