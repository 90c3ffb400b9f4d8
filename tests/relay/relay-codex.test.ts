// Codex CLI on every route: a Codex 0.16x-shaped turn (hand-written, every tool kind Codex sends:
// function, local_shell, the freeform apply_patch, web_search, the multi_agent_v1 namespace; its
// session headers) sent with the official `openai` client through both relay entries.
// - On an OpenAI channel it passes through: the body as it came but the model, the headers
//   OpenAI's clients rely on kept, the caller's key never.
// - On a Claude and a Gemini channel it converts: the tools flattened into functions, web_search
//   dropped and named in `x-qiao-dropped` and the log row, and the vendor's calls of the
//   namespaced tool, apply_patch and local_shell answered as Codex's own items; billed once.
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

const CODEX_TURN = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "../../lib/relay/inbound/responses/__fixtures__/codex-tools-request.json"), "utf8"),
) as Record<string, any>;
const GPT = "gpt-5.1-codex";
const CLAUDE = "claude-sonnet-4-5";
const GEMINI = "gemini-2.5-pro";
const CONVERSATION = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
/** What Codex CLI sends beside its key. */
const CODEX_HEADERS = {
  session_id: CONVERSATION,
  conversation_id: CONVERSATION,
  originator: "codex_cli_rs",
  version: "0.163.0",
  "openai-beta": "responses=experimental",
  "user-agent": "codex_cli_rs/0.163.0 (Debian 12; x86_64) xterm-256color",
};
const PATCH = "*** Begin Patch\n*** Update File: README.md\n@@\n-The app.\n+The app, reviewed.\n*** End Patch\n";
/** The calls each converted vendor answers with: the namespaced wait, apply_patch, local_shell. */
const CALLS = [
  { name: "multi_agent_v1__wait", input: { ids: ["agent-7"], timeout_ms: 30000 } },
  { name: "apply_patch", input: { input: PATCH } },
  { name: "local_shell", input: { command: ["git", "diff", "--stat"], working_directory: "/home/dev/app" } },
];
/** The chat functions a converted turn offers: every tool but web_search, namespaces flattened. */
const FLATTENED = ["shell", "local_shell", "apply_patch", "multi_agent_v1__spawn_agent", "multi_agent_v1__wait", "update_plan"];

const turn = (model: string, stream: boolean) => ({ ...CODEX_TURN, model, stream }) as OpenAI.Responses.ResponseCreateParams;

/** Codex's items for CALLS, as its own Responses client reads them. */
function expectCodexItems(output: OpenAI.Responses.ResponseOutputItem[]) {
  const calls = output.filter((o) => o.type !== "message" && o.type !== "reasoning");
  expect(calls).toEqual([
    expect.objectContaining({
      type: "function_call",
      namespace: "multi_agent_v1",
      name: "wait",
      arguments: JSON.stringify(CALLS[0]!.input),
      status: "completed",
    }),
    expect.objectContaining({ type: "custom_tool_call", name: "apply_patch", input: PATCH, status: "completed" }),
    expect.objectContaining({
      type: "local_shell_call",
      action: { type: "exec", command: ["git", "diff", "--stat"], working_directory: "/home/dev/app", env: {} },
      status: "completed",
    }),
  ]);
  for (const call of calls) expect((call as { call_id: string }).call_id).toMatch(/\S/);
}

for (const entry of ENTRIES) {
  describe(`Codex CLI through the ${entry} entry`, () => {
    let openai: ResponsesMock;
    let claude: AnthropicMock;
    let google: GoogleMock;
    let relay: RelayServer;
    let client: OpenAI;
    let user: Awaited<ReturnType<typeof seedUser>>;
    const consumeLogs = async () => (await getDb()).log.findMany({ where: { user_id: user.id, type: 2 }, orderBy: { id: "asc" } });

    /** The call was billed once: one log row, charged to the user, naming what was dropped. */
    async function expectBilledOnce(before: bigint, dropped: string[] | undefined) {
      await settleAll();
      const logs = await consumeLogs();
      expect(logs).toHaveLength(1);
      expect(logs[0]!.quota).toBeGreaterThan(0n);
      expect(await user.quota()).toBe(before - logs[0]!.quota);
      expect(JSON.parse(logs[0]!.other).dropped).toEqual(dropped);
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
      await seedChannel({ type: 1, base_url: openai.url, models: GPT, model_mapping: JSON.stringify({ [GPT]: "gpt-5.1-codex-2025" }) });
      await seedChannel({ type: 14, base_url: claude.url, models: CLAUDE, key: "sk-ant-codex" });
      await seedChannel({ type: 24, base_url: google.url, models: GEMINI, key: "AIza-codex" });
      user = await seedUser();
      client = new OpenAI({ apiKey: user.key, baseURL: `${relay.url}/v1`, maxRetries: 0 });
    });

    it("passes the turn through to OpenAI as it came, with Codex's session and client headers", async () => {
      const before = await user.quota();
      const { data: stream, response } = await client.responses.create(turn(GPT, true), { headers: CODEX_HEADERS }).withResponse();
      let completed: OpenAI.Responses.Response | null = null;
      for await (const event of stream as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) {
        if (event.type === "response.completed") completed = event.response;
      }
      expect(completed?.status).toBe("completed");
      expect(response.headers.get("x-qiao-dropped")).toBeNull();
      const sent = openai.requests[0]!;
      expect(sent.json).toEqual({ ...CODEX_TURN, model: "gpt-5.1-codex-2025", stream: true });
      expect(sent.headers).toMatchObject(CODEX_HEADERS);
      expect(sent.headers.authorization).toBe("Bearer sk-upstream-key");
      await expectBilledOnce(before, undefined);
    });

    it("converts the streamed turn for Claude: tools flattened, web_search dropped, calls back as Codex's items", async () => {
      claude.setBehaviour({ content: "Waiting for the reviewer, then patching.", toolUses: CALLS });
      const before = await user.quota();
      const { data: stream, response } = await client.responses.create(turn(CLAUDE, true), { headers: CODEX_HEADERS }).withResponse();
      const kinds: string[] = [];
      let completed: OpenAI.Responses.Response | null = null;
      for await (const event of stream as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) {
        kinds.push(event.type);
        if (event.type === "response.completed") completed = event.response;
      }
      expect(response.status).toBe(200);
      expect(response.headers.get("x-qiao-dropped")).toBe("web_search");
      expect(kinds).toContain("response.custom_tool_call_input.done");
      expect(completed!.output[0]).toMatchObject({
        type: "message",
        content: [{ type: "output_text", text: "Waiting for the reviewer, then patching." }],
      });
      expectCodexItems(completed!.output);

      const sent = claude.requests[0]!.json;
      expect(sent.tools.map((t: { name: string }) => t.name)).toEqual(FLATTENED);
      expect(JSON.stringify(sent.system)).toContain("You are Codex");
      // The history's calls went up under the names of their tools, the search call left out.
      const used = sent.messages.flatMap((m: { content: unknown }) =>
        Array.isArray(m.content)
          ? m.content.filter((b: { type: string }) => b.type === "tool_use").map((b: { name: string }) => b.name)
          : [],
      );
      expect(used).toEqual(["local_shell", "apply_patch", "multi_agent_v1__spawn_agent"]);
      expect(claude.requests[0]!.headers.authorization).toBeUndefined();
      await expectBilledOnce(before, ["web_search"]);
    });

    it("converts the turn for Gemini, whole and streamed, answering with Codex's items", async () => {
      google.callFunctions(CALLS.map((c) => ({ name: c.name, args: c.input })));
      const before = await user.quota();
      const { data: whole, response } = await client.responses.create(turn(GEMINI, false), { headers: CODEX_HEADERS }).withResponse();
      expect(response.headers.get("x-qiao-dropped")).toBe("web_search");
      expectCodexItems((whole as OpenAI.Responses.Response).output);
      const sent = google.requests[0]!.json as { tools: { functionDeclarations: { name: string }[] }[] };
      expect(sent.tools.flatMap((t) => t.functionDeclarations.map((f) => f.name))).toEqual(FLATTENED);
      await expectBilledOnce(before, ["web_search"]);

      // Streamed, read by the SDK's own accumulator, which refuses an event out of place.
      const streamed = await client.responses.stream(turn(GEMINI, true) as OpenAI.Responses.ResponseCreateParamsStreaming).finalResponse();
      expectCodexItems(streamed.output);
    });
  });
}
