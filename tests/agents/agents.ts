// The five coding agents we record, each configured only as its own documentation says for a
// custom base URL and key, with HOME and the XDG folders inside a throwaway folder so nothing of
// this machine's configuration leaks in and nothing is written to it.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentName, Protocol, Scenario } from "./fixture";
import { type DeclaredTool, sampleOf, type ToolCallPlan } from "./vendors";

/** The folders and recorder one run of an agent gets. */
export interface RunContext {
  /** The fake home (HOME, XDG folders, the agents' config folders live under it). */
  home: string;
  /** The agent's working folder, holding notes.txt for the tool scenario. */
  work: string;
  /** The recorder's origin, e.g. http://127.0.0.1:41234. */
  url: string;
  key: string;
  /** A model for Codex's config; unset, Codex uses its own default. */
  codexModel?: string;
}

export interface AgentSpec {
  name: AgentName;
  /** npm package and the binary it installs. */
  pkg: string;
  bin: string;
  protocol: Protocol;
  /** Tools the agent declares that read a file, most specific first. */
  readTools: string[];
  /** For a freeform tool among `readTools`: the raw input that reads `file`. */
  freeformRead?(file: string): string;
  /** Writes the agent's config files and returns its environment and arguments. */
  prepare(ctx: RunContext, prompt: string): { env: Record<string, string>; args: string[] };
}

export const PROMPTS: Record<Scenario, string> = {
  plain: "Say hello.",
  tool: "Read the file notes.txt in the current directory and tell me what it says.",
};

export const NOTES_TEXT = "hello from the recorder\n";

// Next's types make NODE_ENV a required key of NodeJS.ProcessEnv; the agents must not get one.
export type Env = Record<string, string | undefined>;

/** An environment with nothing of this machine's: HOME and XDG folders in the run's own folder. */
export function isolatedEnv(home: string): Env {
  return {
    PATH: process.env.PATH,
    LANG: "C.UTF-8",
    TERM: "dumb",
    CI: "1",
    NO_COLOR: "1",
    HOME: home,
    USER: "user",
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_DATA_HOME: path.join(home, ".local", "share"),
    XDG_CACHE_HOME: path.join(home, ".cache"),
    XDG_STATE_HOME: path.join(home, ".local", "state"),
    TMPDIR: path.join(home, "tmp"),
  };
}

/** Runs an agent to its end (or until `timeoutMs`), with its output on stdout and stderr in one text. */
export function runAgent(
  bin: string,
  args: string[],
  cwd: string,
  env: Env,
  timeoutMs: number,
): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    // Its own process group, so a timeout ends the agent and whatever it started, and nothing else.
    const child = spawn(bin, args, { cwd, env: env as NodeJS.ProcessEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    let timedOut = false;
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => {
      timedOut = true;
      output += `\n[agents] timed out after ${timeoutMs / 1000}s`;
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

function writeJson(file: string, value: unknown) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export const AGENT_SPECS: AgentSpec[] = [
  {
    name: "claude-code",
    pkg: "@anthropic-ai/claude-code",
    bin: "claude",
    protocol: "anthropic",
    readTools: ["Read"],
    // https://docs.claude.com/en/docs/claude-code/settings#environment-variables
    prepare: (ctx, prompt) => ({
      env: {
        ANTHROPIC_BASE_URL: ctx.url,
        ANTHROPIC_API_KEY: ctx.key,
        CLAUDE_CONFIG_DIR: path.join(ctx.home, ".claude"),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
      },
      args: ["-p", prompt],
    }),
  },
  {
    name: "codex",
    pkg: "@openai/codex",
    bin: "codex",
    protocol: "responses",
    // Current releases declare one freeform `exec` tool running JavaScript that reaches the shell
    // through `tools.exec_command`; older ones declare the shell tools directly.
    readTools: ["exec_command", "shell_command", "shell", "exec"],
    freeformRead: (file) => `const r = await tools.exec_command({ cmd: "cat ${path.basename(file)}" });\ntext(r.output);\n`,
    // https://github.com/openai/codex/blob/main/docs/config.md#model_providers
    prepare: (ctx, prompt) => {
      const codexHome = path.join(ctx.home, ".codex");
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(
        path.join(codexHome, "config.toml"),
        [
          'model_provider = "qiao"',
          // Unset, Codex sends its default model's request shape; see tests/agents/README.md.
          ...(ctx.codexModel ? [`model = "${ctx.codexModel}"`] : []),
          "",
          "[model_providers.qiao]",
          'name = "Qiao"',
          `base_url = "${ctx.url}/v1"`,
          'env_key = "QIAO_API_KEY"',
          'wire_api = "responses"',
          "",
        ].join("\n"),
      );
      return {
        env: { CODEX_HOME: codexHome, QIAO_API_KEY: ctx.key },
        args: ["exec", "--skip-git-repo-check", prompt],
      };
    },
  },
  {
    name: "gemini-cli",
    pkg: "@google/gemini-cli",
    bin: "gemini",
    protocol: "gemini",
    readTools: ["read_file"],
    // https://github.com/google-gemini/gemini-cli/blob/main/docs/get-started/authentication.md
    prepare: (ctx, prompt) => {
      writeJson(path.join(ctx.home, ".gemini", "settings.json"), {
        security: { auth: { selectedType: "gemini-api-key" } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      });
      // Headless runs refuse an untrusted folder; the documented switch for automation trusts it.
      return {
        env: { GEMINI_API_KEY: ctx.key, GOOGLE_GEMINI_BASE_URL: ctx.url, GEMINI_CLI_TRUST_WORKSPACE: "true" },
        args: ["-p", prompt],
      };
    },
  },
  {
    name: "qwen-code",
    pkg: "@qwen-code/qwen-code",
    bin: "qwen",
    protocol: "openai",
    readTools: ["read_file"],
    // https://github.com/QwenLM/qwen-code#openai-compatible-api
    prepare: (ctx, prompt) => {
      writeJson(path.join(ctx.home, ".qwen", "settings.json"), {
        security: { auth: { selectedType: "openai" } },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      });
      return {
        env: { OPENAI_BASE_URL: `${ctx.url}/v1`, OPENAI_API_KEY: ctx.key, OPENAI_MODEL: "qwen3-coder-plus" },
        args: ["-p", prompt],
      };
    },
  },
  {
    name: "opencode",
    pkg: "opencode-ai",
    bin: "opencode",
    protocol: "openai",
    readTools: ["read"],
    // https://opencode.ai/docs/providers/#custom-provider
    prepare: (ctx, prompt) => {
      writeJson(path.join(ctx.home, ".config", "opencode", "opencode.json"), {
        $schema: "https://opencode.ai/config.json",
        autoupdate: false,
        share: "disabled",
        model: "qiao/qwen3-coder-plus",
        provider: {
          qiao: {
            npm: "@ai-sdk/openai-compatible",
            name: "Qiao",
            options: { baseURL: `${ctx.url}/v1`, apiKey: "{env:QIAO_API_KEY}" },
            models: { "qwen3-coder-plus": { name: "Qwen3 Coder Plus" } },
          },
        },
      });
      return {
        env: { QIAO_API_KEY: ctx.key, OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" },
        args: ["run", prompt],
      };
    },
  },
];

/**
 * The call of the agent's file-reading tool on notes.txt, with arguments filled from the schema
 * the agent itself declared: path-like parameters get the file's absolute path, command-like
 * ones a `cat`, other required ones a value of their type.
 */
export function readFilePlan(spec: AgentSpec, tools: DeclaredTool[], file: string): ToolCallPlan | null {
  const tool = spec.readTools.map((name) => tools.find((t) => t.name === name)).find(Boolean);
  if (!tool) return null;
  if (tool.freeform) return spec.freeformRead ? { name: tool.name, args: spec.freeformRead(file) } : null;
  // Behind a gateway that converts the request, a freeform tool reaches the vendor as a function
  // of one string parameter `input` (lib/relay/inbound/responses/tools.ts): its raw text goes there.
  const props: Record<string, any> = tool.schema.properties ?? {};
  if (spec.freeformRead && Object.keys(props).join() === "input" && String(props.input?.type).toLowerCase() === "string")
    return { name: tool.name, args: { input: spec.freeformRead(file) } };
  const required: string[] = tool.schema.required ?? [];
  const args: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(props)) {
    if (/path/i.test(key)) args[key] = file;
    else if (/^(cmd|command)$/.test(key))
      args[key] = schema?.type === "array" ? ["bash", "-lc", `cat ${path.basename(file)}`] : `cat ${path.basename(file)}`;
    else if (/^(workdir|cwd)$/.test(key)) args[key] = path.dirname(file);
    else if (required.includes(key)) args[key] = sampleOf(schema, key);
  }
  return { name: tool.name, args };
}
