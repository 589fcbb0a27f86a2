// Drives `lore mcp` with the official MCP TypeScript SDK's client through
// bursts of writes (memories and iterations, alternating) that it disrupts
// three ways, each with a server of its own:
//   abort   — an AbortController cancels a third of the calls as soon as
//             they are sent and another third once the first answer came
//             (the SDK sends notifications/cancelled for each);
//   close   — client.close() as soon as the calls are sent: the SDK ends
//             the server's stdin, then sends SIGTERM and SIGKILL 2 s apart;
//   SIGTERM — SIGTERM to the process the SDK started, once the first
//             answer came.
// Prints one JSON line per burst for TestTypeScriptClientBurst: the calls
// made, how many were answered, and what the answers acknowledged (a
// memory's id, an iteration's file), which must all be in HEAD.
//
// usage: node burst.mjs LORE_BINARY REPOSITORY N
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [lore, repo, n] = [process.argv[2], process.argv[3], Number(process.argv[4])];

const runs = { abort: "run-0000a001", close: "run-0000c001", SIGTERM: "run-0000e001" };

const write = (client, burst, i, signal) =>
  i % 2 === 0
    ? client.callTool({ name: "add_memory", arguments: { content: `${burst} burst memory ${i}: the cache is warmed first.`, tags: ["burst"] } }, undefined, { signal })
    : client.callTool(
        { name: "ingest", arguments: { output: `<journal>${burst} burst iteration ${i}.</journal>\n<task-done>T-${i}</task-done>`, run: runs[burst], task_id: `T-${i}` } },
        undefined,
        { signal },
      );

const acknowledged = (res) => {
  const st = res?.structuredContent;
  if (!res || res.isError || !st) return null;
  if (st.journal?.path) return { journal: st.journal.path };
  return st.id ? { memory: st.id } : null;
};

async function burst(name, disrupt) {
  const transport = new StdioClientTransport({ command: lore, args: ["mcp"], cwd: repo, env: process.env, stderr: "inherit" });
  const client = new Client({ name: "lore-ts-burst", version: "1.0.0" });
  await client.connect(transport);
  const controllers = [];
  const calls = [];
  for (let i = 0; i < n; i++) {
    controllers.push(new AbortController());
    calls.push(write(client, name, i, controllers[i].signal));
  }
  const first = Promise.race(calls.map((c) => c.then(() => {}, () => {})));
  await disrupt({ client, transport, controllers, first });
  const settled = await Promise.allSettled(calls);
  const answered = settled.filter((s) => s.status === "fulfilled");
  const acks = answered.map((s) => acknowledged(s.value)).filter(Boolean);
  await client.close().catch(() => {});
  console.log(JSON.stringify({ burst: name, made: n, answered: answered.length, acks }));
}

await burst("abort", async ({ controllers, first }) => {
  controllers.forEach((c, i) => i % 3 === 0 && c.abort("the user pressed Esc"));
  await first;
  controllers.forEach((c, i) => i % 3 === 1 && c.abort("the user pressed Esc"));
});
await burst("close", async ({ client }) => {
  await client.close();
});
await burst("SIGTERM", async ({ transport, first }) => {
  await first;
  process.kill(transport.pid, "SIGTERM");
});
