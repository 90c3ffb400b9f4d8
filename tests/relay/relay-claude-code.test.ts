// Claude Code on every route: a turn shaped as Claude Code 2.1 sends it (a streamed /v1/messages
// with a dozen betas, a system message inside `messages`, adaptive thinking with an effort, context
// management, a deferred tool and a server tool), sent with the official @anthropic-ai/sdk and its
// answer read by it. On a Claude channel the body goes up byte for byte but the model, with the
// allow-listed headers and never the caller's key; on an OpenAI and a Gemini channel it is
// converted, the mid-conversation system text lands where each vendor keeps system text, and
// what could not go along is named in `x-qiao-dropped` and the log row. Every route bills once.
// Through both entries (Node and Next's route handler).
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { updateOption } from "@/lib/options";
import { clearRelayData, ENTRIES, seedChannel, seedUser, settleAll, startRelay, type RelayServer } from "@/tests/helpers/relay";
import { type AnthropicMock, CLAUDE_TEXT, startAnthropicMock } from "@/tests/mocks/anthropic";
import { type GoogleMock, startGoogleMock } from "@/tests/mocks/gemini";
import { type OpenAIMock, startOpenAIMock } from "@/tests/mocks/openai-upstream";

const MODEL = "claude-sonnet-4-5-20250929";
const SESSION = "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b";
const BETAS = [
  "claude-code-20250219",
  "interleaved-thinking-2025-05-14",
  "context-management-2025-06-27",
  "fine-grained-tool-streaming-2025-05-14",
  "per-turn-control-2026-07-01",
  "mid-conversation-tool-changes-2026-07-01",
];
/** Claude Code's own headers beside the SDK's (`x-stainless-*`, which the SDK sets itself). */
const CLAUDE_CODE_HEADERS = {
  "x-app": "cli",
  "x-claude-code-session-id": SESSION,
  "user-agent": "claude-cli/2.1.12 (external, cli)",
};
const SYSTEM = "You are Claude Code, Anthropic's official CLI for Claude.";
const MID_SYSTEM = "The user switched to plan mode: do not edit files.";

/** One turn as Claude Code sends it: the second request of a tool round trip. */
function claudeCodeTurn() {
  return {
    model: MODEL,
    max_tokens: 32000,
    stream: true as const,
    temperature: 1,
    metadata: { user_id: `user_${"ab".repeat(32)}_account_0f6e1c9a-5d2b-4e8f-9a7c-3b1d2e4f5a6b_session_${SESSION}` },
    system: [
      { type: "text" as const, text: SYSTEM, cache_control: { type: "ephemeral" as const } },
      { type: "text" as const, text: "Working directory: /home/dev/app", cache_control: { type: "ephemeral" as const } },
    ],
    messages: [
      { role: "user" as const, content: [{ type: "text" as const, text: "List the files here." }] },
      {
        role: "assistant" as const,
        content: [
          { type: "thinking" as const, thinking: "I should run ls.", signature: "EqQBCkYIBxgCKkA" },
          { type: "tool_use" as const, id: "toolu_01", name: "Bash", input: { command: "ls" } },
        ],
      },
      { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "toolu_01", content: "README.md\nsrc" }] },
      { role: "system" as const, content: MID_SYSTEM },
      {
        role: "user" as const,
        content: [{ type: "text" as const, text: "Summarise the README.", cache_control: { type: "ephemeral" as const } }],
      },
    ],
    tools: [
      {
        name: "Bash",
        description: "Executes a bash command.",
        input_schema: { type: "object" as const, properties: { command: { type: "string" } }, required: ["command"] },
      },
      {
        name: "Read",
        description: "Reads a file.",
        input_schema: { type: "object" as const, properties: { file_path: { type: "string" } }, required: ["file_path"] },
        defer_loading: true,
        cache_control: { type: "ephemeral" as const },
      },
      { type: "web_search_20250305" as const, name: "web_search" as const, max_uses: 8 },
    ],
    tool_choice: { type: "auto" as const },
    thinking: { type: "adaptive" as const },
    output_config: { effort: "high" as const },
    context_management: { edits: [{ type: "clear_thinking_20251015" as const, keep: "all" as const }] },
  };
}

/** What the decoder leaves out of this turn on a converted route. */
const DROPPED = ["context_management", "defer_loading", "web_search"];

async function consumeLogs(userId: number) {
  return (await getDb()).log.findMany({ where: { user_id: userId, type: 2 }, orderBy: { id: "asc" } });
}

for (const entry of ENTRIES) {
  describe(`Claude Code on every route (${entry} entry)`, () => {
    let relay: RelayServer;
    let claude: AnthropicMock;
    let openai: OpenAIMock;
    let google: GoogleMock;
    let user: Awaited<ReturnType<typeof seedUser>>;
    /** The bytes and headers the SDK put on the wire, for comparing with what reached the vendor. */
    let sent: { body: string; headers: Headers }[];
    let client: Anthropic;

    beforeAll(async () => {
      claude = await startAnthropicMock({ apiKey: "sk-ant-channel" });
      openai = await startOpenAIMock({ apiKey: "sk-openai-channel" });
      google = await startGoogleMock({ apiKey: "AIza-channel" });
      relay = await startRelay(entry);
      await updateOption("ModelRatio", JSON.stringify({ [MODEL]: 1.5 }));
      await updateOption("CompletionRatio", JSON.stringify({ [MODEL]: 5 }));
    });
    afterAll(async () => {
      await relay.close();
      await claude.close();
      await openai.close();
      await google.close();
    });
    beforeEach(async () => {
      claude.reset();
      openai.reset();
      google.reset();
      await clearRelayData();
      await updateOption("RetryTimes", "0");
      user = await seedUser();
      sent = [];
      client = new Anthropic({
        apiKey: user.key,
        baseURL: relay.url,
        maxRetries: 0,
        dangerouslyAllowBrowser: true,
        defaultHeaders: CLAUDE_CODE_HEADERS,
        fetch: async (url, init) => {
          sent.push({ body: String(init?.body), headers: new Headers(init?.headers) });
          return fetch(url, init);
        },
      });
    });

    /** The turn through the SDK's streaming helper, as Claude Code reads it. */
    async function streamTurn() {
      const stream = client.beta.messages.stream({ ...claudeCodeTurn(), betas: BETAS });
      const { response } = await stream.withResponse();
      const message = await stream.finalMessage();
      return { response, message };
    }

    /** One log row, and the caller's quota down by exactly its amount. */
    async function expectBilledOnce(before: bigint) {
      await settleAll();
      const logs = await consumeLogs(user.id);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ model_name: MODEL, is_stream: true });
      expect(logs[0]!.quota).toBeGreaterThan(0n);
      expect(await user.quota()).toBe(before - logs[0]!.quota);
      return { log: logs[0]!, other: JSON.parse(logs[0]!.other) as Record<string, unknown> };
    }

    it("passes through to a Claude channel: the body byte for byte but the model, the allow-listed headers, never the caller's key", async () => {
      await seedChannel({
        type: 14,
        base_url: claude.url,
        models: MODEL,
        key: "sk-ant-channel",
        model_mapping: JSON.stringify({ [MODEL]: "claude-sonnet-4-5" }),
      });
      const before = await user.quota();
      const { response, message } = await streamTurn();

      expect(response.status).toBe(200);
      expect(response.headers.get("x-qiao-dropped")).toBeNull();
      expect(message.content).toMatchObject([{ type: "text", text: CLAUDE_TEXT }]);
      const caller = sent[0]!;
      const upstream = claude.requests[0]!;
      expect(upstream.body).toBe(caller.body.replace(`"model":"${MODEL}"`, '"model":"claude-sonnet-4-5"'));
      // Everything Claude Code relies on went along, as it was sent.
      expect(upstream.headers["anthropic-beta"]).toBe(BETAS.join(","));
      expect(caller.headers.get("anthropic-beta")).toBe(BETAS.join(","));
      for (const name of [
        "anthropic-version",
        "anthropic-dangerous-direct-browser-access",
        "x-app",
        "x-claude-code-session-id",
        "user-agent",
        "x-stainless-lang",
        "x-stainless-package-version",
        "x-stainless-os",
        "x-stainless-runtime",
        "x-stainless-helper-method",
      ]) {
        expect(caller.headers.get(name), name).not.toBeNull();
        expect(upstream.headers[name], name).toBe(caller.headers.get(name));
      }
      // The channel's key, never the caller's.
      expect(upstream.headers["x-api-key"]).toBe("sk-ant-channel");
      expect(upstream.headers.authorization).toBeUndefined();
      expect(JSON.stringify(upstream.headers)).not.toContain(user.key);

      const { other } = await expectBilledOnce(before);
      expect(other.dropped).toBeUndefined();
    });

    it("converts for an OpenAI channel: system text in place, what cannot go along named", async () => {
      await seedChannel({ type: 1, base_url: openai.url, models: MODEL, key: "sk-openai-channel" });
      const before = await user.quota();
      const { response, message } = await streamTurn();

      expect(response.status).toBe(200);
      expect(message.role).toBe("assistant");
      expect(message.content.find((b) => b.type === "text")).toMatchObject({ text: "Hello! How can I help you today?" });
      const dropped = response.headers.get("x-qiao-dropped")?.split(",") ?? [];
      expect(dropped).toEqual(expect.arrayContaining(DROPPED));

      const body = openai.requests[0]!.json as Record<string, any>;
      expect(body.messages).toEqual([
        { role: "system", content: `${SYSTEM}\nWorking directory: /home/dev/app` },
        { role: "user", content: "List the files here." },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "toolu_01", type: "function", function: { name: "Bash", arguments: '{"command":"ls"}' } }],
        },
        { role: "tool", tool_call_id: "toolu_01", content: "README.md\nsrc" },
        { role: "system", content: MID_SYSTEM },
        { role: "user", content: "Summarise the README." },
      ]);
      expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["Bash", "Read"]);
      expect(JSON.stringify(body)).not.toMatch(/defer_loading|context_management|cache_control|web_search/);
      expect(openai.requests[0]!.headers.authorization).toBe("Bearer sk-openai-channel");

      const { other } = await expectBilledOnce(before);
      expect(other.dropped).toEqual(expect.arrayContaining(DROPPED));
    });

    it("converts for a Gemini channel: both system texts in systemInstruction, what cannot go along named", async () => {
      await seedChannel({ type: 24, base_url: google.url, models: MODEL, key: "AIza-channel" });
      const before = await user.quota();
      const { response, message } = await streamTurn();

      expect(response.status).toBe(200);
      // The mock Gemini answers a request with tools by calling two of its own: they come back as
      // Anthropic tool_use blocks the SDK assembled from the stream.
      expect(message.stop_reason).toBe("tool_use");
      expect(message.content.map((b) => b.type)).toEqual(["tool_use", "tool_use"]);
      expect(response.headers.get("x-qiao-dropped")?.split(",")).toEqual(expect.arrayContaining(DROPPED));

      const sentToGoogle = google.requests.at(-1)!;
      expect(sentToGoogle.path).toBe(`/v1beta/models/${MODEL}:streamGenerateContent`);
      const body = sentToGoogle.json as Record<string, any>;
      expect(body.systemInstruction).toEqual({ parts: [{ text: `${SYSTEM}\nWorking directory: /home/dev/app` }, { text: MID_SYSTEM }] });
      expect(JSON.stringify(body.contents)).not.toContain(MID_SYSTEM);
      expect(body.tools[0].functionDeclarations.map((f: { name: string }) => f.name)).toEqual(["Bash", "Read"]);
      expect(JSON.stringify(body)).not.toMatch(/defer_loading|context_management|web_search/);

      const { other } = await expectBilledOnce(before);
      expect(other.dropped).toEqual(expect.arrayContaining(DROPPED));
    });
  });
}
