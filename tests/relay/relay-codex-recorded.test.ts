// Codex 0.171's recorded requests (tests/fixtures/agents/codex and codex-gpt-5.4, see
// tests/agents/README.md) replayed with the official `openai` client, headers as Codex sent them,
// through both relay entries. Two request shapes:
// - its default model's: no `tools`, every tool in an `additional_tools` input item (a freeform
//   `exec` in the default namespace `functions`, the `clock` and `collaboration` namespaces),
//   `"encrypted": true` in some parameter schemas, `reasoning.context`, `client_metadata`;
// - a model it has no metadata for (gpt-5.4): `tools` with the `multi_agent_v1` namespace and
//   `web_search`.
// On an OpenAI channel each passes through with Codex's session and `x-codex-*` headers. On a
// Claude and a Gemini channel each converts: the tools present upstream under their flattened
// names, the tool turn's call and output in the vendor's history form, the vendor's call of the
// tool answered as Codex's own item, the stream parsed by the SDK, billed once.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { type AnthropicMock, startAnthropicMock } from "@/tests/mocks/anthropic";
import { type GoogleMock, startGoogleMock } from "@/tests/mocks/gemini";
import { type ResponsesMock, startResponsesMock } from "@/tests/mocks/openai-responses";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";
import type { AgentFixture } from "@/tests/agents/fixture";

type Body = Record<string, any>;
const fixture = (id: string, scenario: "plain" | "tool") =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, `../fixtures/agents/${id}/${scenario}.json`), "utf8")) as AgentFixture;

const GPT = "gpt-5.4";
const CLAUDE = "claude-sonnet-4-5";
const GEMINI = "gemini-2.5-pro";
const NOTES = "hello from the recorder";

interface Shape {
  id: string;
  /** The chat functions a converted request offers, in order. */
  tools: string[];
  /** What the conversion leaves out (the `x-qiao-dropped` header and the log row). */
  dropped: string[] | undefined;
  /** The file-reading call the vendor answers the tool turn's first request with, and the item Codex gets. */
  call: { name: string; input: Record<string, unknown>; item: Record<string, unknown> };
  /** The tool turn's recorded call, as the vendor's history names it. */
  replayed: string;
}

const READ = 'const r = await tools.exec_command({ cmd: "cat notes.txt" });\ntext(r.output);\n';
const SHAPES: Shape[] = [
  {
    id: "codex",
    tools: [
      "exec",
      "wait",
      "request_user_input",
      "request_user_input_async",
      "send_message_to_user_async",
      "clock__sleep",
      "collaboration__followup_task",
      "collaboration__interrupt_agent",
      "collaboration__list_agents",
      "collaboration__send_message",
      "collaboration__spawn_agent",
      "collaboration__wait_agent",
    ],
    dropped: undefined,
    call: { name: "exec", input: { input: READ }, item: { type: "custom_tool_call", name: "exec", input: READ } },
    replayed: "exec",
  },
  {
    id: "codex-gpt-5.4",
    tools: [
      "exec_command",
      "write_stdin",
      "request_user_input",
      "view_image",
      "multi_agent_v1__close_agent",
      "multi_agent_v1__resume_agent",
      "multi_agent_v1__send_input",
      "multi_agent_v1__spawn_agent",
      "multi_agent_v1__wait_agent",
      "get_goal",
      "create_goal",
      "update_goal",
    ],
    dropped: ["web_search"],
    call: {
      name: "exec_command",
      input: { cmd: "cat notes.txt" },
      item: { type: "function_call", name: "exec_command", arguments: '{"cmd":"cat notes.txt"}' },
    },
    replayed: "exec_command",
  },
];

/** A recorded request as the SDK sends it: the body for `model`, Codex's headers. */
function replay(client: OpenAI, request: AgentFixture["requests"][number], model: string) {
  const body = { ...(request.body as Body), model } as OpenAI.Responses.ResponseCreateParamsStreaming;
  return client.responses.create(body, { headers: request.headers }).withResponse();
}

/** The answer's text: the message items' output_text parts (a streamed Response has no `output_text`). */
const textOf = (response: OpenAI.Responses.Response) =>
  response.output
    .flatMap((o) => (o.type === "message" ? o.content : []))
    .map((c) => (c.type === "output_text" ? c.text : ""))
    .join("");

/** The answer's items other than its text. */
const callsOf = (response: OpenAI.Responses.Response) => response.output.filter((o) => o.type !== "message" && o.type !== "reasoning");

/** Reads the stream with the SDK; the final Response and every event's type. */
async function readStream(stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) {
  const kinds: string[] = [];
  let completed: OpenAI.Responses.Response | null = null;
  for await (const event of stream) {
    kinds.push(event.type);
    if (event.type === "response.completed") completed = event.response;
  }
  expect(completed?.status).toBe("completed");
  return { kinds, completed: completed! };
}

for (const entry of ENTRIES) {
  describe(`Codex 0.171's recorded requests through the ${entry} entry`, () => {
    let openai: ResponsesMock;
    let claude: AnthropicMock;
    let google: GoogleMock;
    let relay: RelayServer;
    let client: OpenAI;
    let user: Awaited<ReturnType<typeof seedUser>>;
    const consumeLogs = async () => (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "asc" } });

    /** The calls since `before` were billed once each: one log row apiece, charged, naming what was dropped. */
    async function expectBilled(before: bigint, calls: number, dropped: string[] | undefined, lastDropped = dropped) {
      await settleAll();
      const logs = await consumeLogs();
      expect(logs).toHaveLength(calls);
      for (const [i, log] of logs.entries()) {
        expect(log.quota).toBeGreaterThan(0n);
        expect(JSON.parse(log.other).dropped).toEqual(i === logs.length - 1 ? lastDropped : dropped);
      }
      expect(await user.quota()).toBe(before - logs.reduce((sum, l) => sum + l.quota, 0n));
    }

    beforeAll(async () => {
      openai = await startResponsesMock({ apiKey: "sk-upstream-key" });
      claude = await startAnthropicMock({ apiKey: "sk-ant-codex" });
      google = await startGoogleMock({ apiKey: "AIza-codex" });
      relay = await startRelay(entry);
      await updateOption("ModelRatio", JSON.stringify({ [GPT]: 1, [CLAUDE]: 2, [GEMINI]: 1 }));
      await updateOption("RetryTimes", "0");
    });
    afterAll(async () => {
      await relay.close();
      await openai.close();
      await claude.close();
      await google.close();
    });
    beforeEach(async () => {
      openai.reset();
      claude.reset();
      google.reset();
      await clearRelayData();
      await seedChannel({ type: 1, base_url: openai.url, models: GPT, model_mapping: JSON.stringify({ [GPT]: "gpt-5.4-2026" }) });
      await seedChannel({ type: 14, base_url: claude.url, models: CLAUDE, key: "sk-ant-codex" });
      await seedChannel({ type: 24, base_url: google.url, models: GEMINI, key: "AIza-codex" });
      user = await seedUser();
      client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    });

    for (const shape of SHAPES) {
      const plain = fixture(shape.id, "plain").requests;
      const tool = fixture(shape.id, "tool").requests;

      it(`${shape.id}: passes through to OpenAI as recorded, with Codex's session and x-codex headers`, async () => {
        const before = await user.quota();
        const { data, response } = await replay(client, tool.at(-1)!, GPT);
        await readStream(data);
        expect(response.headers.get("x-qiao-dropped")).toBeNull();
        const sent = openai.requests[0]!;
        expect(sent.json).toEqual({ ...(tool.at(-1)!.body as Body), model: "gpt-5.4-2026" });
        const recorded = tool.at(-1)!.headers;
        for (const name of Object.keys(recorded).filter((n) => n === "session-id" || n === "thread-id" || n.startsWith("x-codex-"))) {
          expect(sent.headers[name], name).toBe(recorded[name]);
        }
        expect(sent.headers["x-openai-internal-codex-responses-lite"]).toBe(recorded["x-openai-internal-codex-responses-lite"]);
        expect(sent.headers.authorization).toBe("Bearer sk-upstream-key");
        await expectBilled(before, 1, undefined);
      });

      it(`${shape.id}: the plain turn converts for Claude and Gemini with every tool flattened`, async () => {
        claude.setBehaviour({ content: "Hello!" });
        const before = await user.quota();
        const { data, response } = await replay(client, plain.at(-1)!, CLAUDE);
        const { completed } = await readStream(data);
        expect(response.status).toBe(200);
        expect(response.headers.get("x-qiao-dropped")).toBe(shape.dropped?.join(",") ?? null);
        expect(textOf(completed)).toBe("Hello!");
        const toClaude = claude.requests[0]!.json;
        expect(toClaude.tools.map((t: { name: string }) => t.name)).toEqual(shape.tools);
        expect(JSON.stringify(toClaude.system)).toContain("You are");
        expect(toClaude.messages.at(-1)).toMatchObject({ role: "user" });
        expect(JSON.stringify(toClaude.messages.at(-1))).toContain("Say hello.");

        const fromGemini = await replay(client, plain.at(-1)!, GEMINI);
        await readStream(fromGemini.data);
        const toGemini = google.requests[0]!.json as { tools: { functionDeclarations: { name: string; parameters?: unknown }[] }[] };
        const declared = toGemini.tools.flatMap((t) => t.functionDeclarations);
        expect(declared.map((f) => f.name)).toEqual(shape.tools);
        // Gemini's Schema has no `encrypted`: Codex's annotation stays behind.
        expect(JSON.stringify(declared)).not.toContain('"encrypted"');
        await expectBilled(before, 2, shape.dropped);
      });

      it(`${shape.id}: the tool turn round-trips through Claude: the vendor's call as Codex's item, the history as tool_use and tool_result`, async () => {
        const before = await user.quota();
        claude.setBehaviour({ toolUses: [{ name: shape.call.name, input: shape.call.input }] });
        const first = await replay(client, tool[0]!, CLAUDE);
        const { kinds, completed } = await readStream(first.data);
        expect(callsOf(completed)).toEqual([expect.objectContaining({ ...shape.call.item, status: "completed" })]);
        if (shape.call.item.type === "custom_tool_call") expect(kinds).toContain("response.custom_tool_call_input.done");
        expect((callsOf(completed)[0] as { namespace?: string }).namespace).toBeUndefined();

        claude.setBehaviour({ content: `notes.txt says: ${NOTES}` });
        const second = await replay(client, tool.at(-1)!, CLAUDE);
        expect(textOf((await readStream(second.data)).completed)).toBe(`notes.txt says: ${NOTES}`);
        const sent = claude.requests[1]!.json;
        expect(sent.tools.map((t: { name: string }) => t.name)).toEqual(shape.tools);
        const blocks = sent.messages.flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []));
        const use = blocks.find((b: { type: string }) => b.type === "tool_use");
        const result = blocks.find((b: { type: string }) => b.type === "tool_result");
        expect(use).toMatchObject({ name: shape.replayed });
        expect(result.tool_use_id).toBe(use.id);
        expect(JSON.stringify(result.content)).toContain(NOTES);
        // Claude thinks only when the turn it continues starts with its own thinking block, which a
        // converted history never has: a request continuing a tool loop goes without thinking, and
        // says so when it asked for an effort (the default shape sends reasoning.effort "low").
        const asked = (tool.at(-1)!.body as { reasoning?: { effort?: string } }).reasoning?.effort !== undefined;
        await expectBilled(before, 2, shape.dropped, asked ? [...(shape.dropped ?? []), "reasoning_effort"] : shape.dropped);
      });

      it(`${shape.id}: the tool turn round-trips through Gemini: functionCall and functionResponse under the flattened name`, async () => {
        const before = await user.quota();
        google.callFunctions([{ name: shape.call.name, args: shape.call.input }]);
        const first = await replay(client, tool[0]!, GEMINI);
        const { completed } = await readStream(first.data);
        expect(callsOf(completed)).toEqual([expect.objectContaining({ ...shape.call.item, status: "completed" })]);

        const second = await replay(client, tool.at(-1)!, GEMINI);
        await readStream(second.data);
        const sent = google.requests[1]!.json as { contents: { role: string; parts: Record<string, any>[] }[]; tools: unknown };
        const parts = sent.contents.flatMap((c) => c.parts);
        const call = parts.find((p) => p.functionCall);
        const response = parts.find((p) => p.functionResponse);
        expect(call?.functionCall.name).toBe(shape.replayed);
        expect(response?.functionResponse.name).toBe(shape.replayed);
        expect(JSON.stringify(response?.functionResponse.response)).toContain(NOTES);
        await expectBilled(before, 2, shape.dropped);

        // The SDK's own accumulator refuses an event out of place.
        const streamed = await client.responses
          .stream({ ...(tool[0]!.body as Body), model: GEMINI } as OpenAI.Responses.ResponseCreateParamsStreaming, {
            headers: tool[0]!.headers,
          })
          .finalResponse();
        expect(callsOf(streamed)).toEqual([expect.objectContaining(shape.call.item)]);
      });
    }
  });
}
