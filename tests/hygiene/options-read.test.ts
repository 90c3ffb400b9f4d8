// Every option that can be saved takes effect somewhere, or is not offered (issue 20.14).
//
// The rule: an option is READ when its key appears, as a whole word, in product code that acts on
// it: app/, components/, lib/, proxy.ts, server.ts, without tests and without the places that
// only store or edit options, which say nothing about effect:
//   - lib/options/ and lib/status/ (the registry, the store, the operation tab's field lists), except that
//     lib/status/site-status.ts publishes options in /api/status under other names
//     (`system_name: o.SystemName`): there the key is read when its status name is used outside
//     lib/options/ and outside the status object's type (lib/ui/site-status.ts);
//   - the settings editors (components/settings/, app/setting/, app/api/option/): a field or a
//     switch there offers an option; showing it is not acting on it.
// A key with no reader is either wired up or no longer offered; the keys below are deliberate
// exceptions, each with its reason, and the test also fails when an exception is read after all
// (so the list cannot go stale).
import { readFileSync } from "node:fs";
import path from "node:path";
import { sourceFiles } from "@/tests/helpers/source-files";
import { describe, expect, it } from "vitest";
import { OPTION_KEYS } from "@/lib/options/registry";

const root = path.resolve(import.meta.dirname, "../..");

const NOT_OFFERED =
  "not offered in the console: new-api stores it, so PUT /api/option/ accepts it (a migrated options table or an admin script keeps working), but nothing in Qiao acts on it";
const EXCEPTIONS: Record<string, string> = {
  // new-api's check of completions (Qiao checks prompts: CheckSensitiveOnPromptEnabled).
  CheckSensitiveOnCompletionEnabled: NOT_OFFERED,
  StopOnSensitiveEnabled: NOT_OFFERED,
  StreamCacheQueueLength: NOT_OFFERED,
  // new-api's own code never reads these either (inventory §5.8).
  FileUploadPermission: NOT_OFFERED,
  FileDownloadPermission: NOT_OFFERED,
  ImageUploadPermission: NOT_OFFERED,
  ImageDownloadPermission: NOT_OFFERED,
  // Published as /api/status demo_site_enabled for new-api's frontend; Qiao's console has no demo mode.
  DemoSiteEnabled: NOT_OFFERED,
};

const SOURCE = /\.(ts|tsx)$/;
const SKIP = /(^|\/)(generated|node_modules|__fixtures__)(\/|$)|\.test\.tsx?$/;
const EDITORS = /^(lib\/options|lib\/status|components\/settings|app\/setting|app\/api\/option)\//;
const STATUS_TYPE = "lib/ui/site-status.ts";

const sources = (dir: string) => sourceFiles(root, dir, SKIP, SOURCE);

const files = [...sources("app"), ...sources("components"), ...sources("lib"), "proxy.ts", "server.ts"];
const text = (files: string[]) => files.map((f) => readFileSync(path.join(root, f), "utf8")).join("\n");
/** Code that acts on options: not the editors, not the status object's type. */
const actingCode = text(files.filter((f) => !EDITORS.test(f) && f !== STATUS_TYPE));
const statusSource = readFileSync(path.join(root, "lib/status/site-status.ts"), "utf8");

const word = (name: string) => new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`);

/** The names /api/status publishes `key` under (`name: o.Key` or `name: helper(o)` reading it there). */
function statusNames(key: string): string[] {
  return [...statusSource.matchAll(new RegExp(`(\\w+): o\\.${key}\\b`, "g"))].map((m) => m[1]!);
}

function readers(key: string): string[] {
  const found: string[] = [];
  if (word(key).test(actingCode)) found.push(key);
  for (const name of statusNames(key)) if (word(name).test(actingCode)) found.push(`/api/status ${name}`);
  return found;
}

describe("the option registry", () => {
  it("has a reader outside lib/options/ for every option it offers", () => {
    const unread = OPTION_KEYS.filter((key) => !Object.hasOwn(EXCEPTIONS, key) && readers(key).length === 0);
    expect(unread, "options saved but never read: wire them up, or stop offering them and list them here").toEqual([]);
  });

  it("lists as exceptions only options that exist and are really unread", () => {
    for (const key of Object.keys(EXCEPTIONS)) {
      expect(OPTION_KEYS, key).toContain(key);
      expect(readers(key), `${key} is read now: remove it from the exceptions`).toEqual([]);
    }
  });
});
