// `npm run record:agents`: installs the current release of each coding agent into a scratch
// folder outside the repo, runs it in every scenario against the recorder, and writes
// tests/fixtures/agents/<agent>/<scenario>.json. Re-running it after an agent's release gives a
// diff of exactly what the new version sends.
//
//   QIAO_AGENTS_DIR=/tmp/qiao-agents  where the agents are installed (default /tmp/qiao-agents)
//   QIAO_AGENTS_SKIP_INSTALL=1        use what is installed there
//   QIAO_AGENTS_ONLY=codex,opencode   record only these agents or variants (codex-gpt-5.4)
//   QIAO_CODEX_MODEL=gpt-5.5          record Codex configured with this model, into
//                                     tests/fixtures/agents/codex-gpt-5.5/ (default: Codex's own model, codex/)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AGENT_SPECS, type AgentSpec, type Env, isolatedEnv, NOTES_TEXT, PROMPTS, readFilePlan, runAgent } from "./agents";
import {
  type AgentFixture,
  fixturePath,
  type Placeholders,
  RECORDING_KEY,
  SCENARIOS,
  type Scenario,
  scrubRequest,
  VARIANTS,
} from "./fixture";
import { startRecorder } from "./recorder";
import { scriptedVendor } from "./vendors";

const AGENTS_DIR = path.resolve(process.env.QIAO_AGENTS_DIR ?? "/tmp/qiao-agents");
const RUN_TIMEOUT_MS = 240_000;

const only = process.env.QIAO_AGENTS_ONLY?.split(",").map((s) => s.trim());

/** One configuration of an agent to record, written under its fixture id. */
interface Run {
  id: string;
  spec: AgentSpec;
  codexModel?: string;
}

function runsToRecord(): Run[] {
  const codexModel = process.env.QIAO_CODEX_MODEL || undefined;
  const spec = (name: string) => AGENT_SPECS.find((s) => s.name === name)!;
  const runs: Run[] = [
    // A model asked for on the command line makes Codex's run a variant: the default recording stays.
    ...AGENT_SPECS.map((s) =>
      s.name === "codex" && codexModel ? { id: `codex-${codexModel}`, spec: s, codexModel } : { id: s.name, spec: s },
    ),
    ...VARIANTS.map((v) => ({ id: v.id, spec: spec(v.agent), codexModel: v.codexModel })),
  ];
  const chosen = runs.filter((r) => !only || only.includes(r.id) || only.includes(r.spec.name));
  // An agent's name selects its variants too; a model named on the command line may repeat a
  // variant's id, which is then recorded once.
  return chosen.filter((r, i) => chosen.findIndex((o) => o.id === r.id) === i);
}

const runs = runsToRecord();
const specs = [...new Set(runs.map((r) => r.spec))];

function install() {
  mkdirSync(AGENTS_DIR, { recursive: true });
  const manifest = path.join(AGENTS_DIR, "package.json");
  if (!existsSync(manifest)) writeFileSync(manifest, `${JSON.stringify({ name: "qiao-agents", private: true }, null, 2)}\n`);
  // `@latest` by name: without it npm settles for an older release whose `engines` fits this Node.
  const packages = specs.map((s) => `${s.pkg}@latest`);
  console.log(`installing into ${AGENTS_DIR}: ${packages.join(" ")}`);
  const res = spawnSync("npm", ["install", "--no-audit", "--no-fund", ...packages], { cwd: AGENTS_DIR, stdio: "inherit" });
  if (res.status !== 0) throw new Error(`npm install failed with status ${res.status}`);
}

const binPath = (spec: AgentSpec) => path.join(AGENTS_DIR, "node_modules", ".bin", spec.bin);

function versionOf(spec: AgentSpec, env: Env): string {
  const res = spawnSync(binPath(spec), ["--version"], { env: env as NodeJS.ProcessEnv, encoding: "utf8", timeout: 60_000 });
  const text = `${res.stdout}${res.stderr}`;
  return /\d+\.\d+\.\d+[\w.-]*/.exec(text)?.[0] ?? text.trim();
}

async function record({ id, spec, codexModel }: Run, scenario: Scenario): Promise<AgentFixture | null> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "qiao-record-")));
  const home = path.join(root, "home");
  const work = path.join(root, "project");
  for (const dir of [home, work, path.join(home, "tmp")]) mkdirSync(dir, { recursive: true });
  const notes = path.join(work, "notes.txt");
  writeFileSync(notes, NOTES_TEXT);
  const recorder = await startRecorder(
    scriptedVendor(spec.protocol, { scenario, planToolCall: (tools) => readFilePlan(spec, tools, notes) }),
  );
  try {
    const env = isolatedEnv(home);
    const version = versionOf(spec, env);
    const { env: agentEnv, args } = spec.prepare({ home, work, url: recorder.url, key: RECORDING_KEY, codexModel }, PROMPTS[scenario]);
    const started = Date.now();
    const { code, output } = await runAgent(binPath(spec), args, work, { ...env, ...agentEnv }, RUN_TIMEOUT_MS);
    const places: Placeholders = [
      [work, "/work/project"],
      [home, "/home/user"],
      [root, "/tmp/qiao-record"],
      [AGENTS_DIR, "/opt/qiao-agents"],
      [recorder.url, "http://127.0.0.1:8787"],
    ];
    const requests = recorder.requests.map((r) => scrubRequest(r, [RECORDING_KEY], places));
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`  ${id} ${version} ${scenario}: exit ${code} in ${seconds}s, ${requests.length} requests`);
    for (const r of requests) console.log(`    ${r.method} ${r.path}`);
    const last = output.trim().split("\n").slice(-6).join("\n      ");
    if (code !== 0 || requests.length === 0) {
      console.log(`    agent output (last lines):\n      ${last}`);
      return null;
    }
    return { agent: id, version, recordedAt: new Date().toISOString(), protocol: spec.protocol, scenario, requests };
  } finally {
    await recorder.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function main() {
  if (process.env.QIAO_AGENTS_SKIP_INSTALL !== "1") install();
  const failed: string[] = [];
  for (const run of runs) {
    for (const scenario of SCENARIOS) {
      const fixture = await record(run, scenario);
      if (!fixture) {
        failed.push(`${run.id}/${scenario}`);
        continue;
      }
      const file = fixturePath(run.id, scenario);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(fixture, null, 2)}\n`);
      console.log(`    wrote ${path.relative(process.cwd(), file)}`);
    }
  }
  if (failed.length) {
    // The old fixture of a failed run stays as it was: a half recording would be worse than none.
    console.error(`not recorded (fixtures left unchanged): ${failed.join(", ")}`);
    process.exitCode = 1;
  }
}

await main();
