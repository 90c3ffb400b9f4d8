// The options cache: every option's typed value, read from the `options` table once and then
// served from memory. It is refreshed from the database every SYNC_FREQUENCY seconds, so a change
// saved on another instance arrives within that time; a change saved here applies at once.
//
// The cache lives on globalThis because Next's bundles and the custom server load this module
// separately; they must share one cache and one timer. Caches built from options (the relay's
// pricing memo) key on the snapshot object, which every change replaces, so nothing here has to
// tell them about a change.
//
// A change made by someone (the settings pages, through PUT /api/option/) is written to the audit
// trail with the old and new value; a secret's values only as masked lengths.
import { badRequest } from "@/lib/errors";
import { type DirectDb, getDirectDb } from "@/lib/db/direct";
import { str } from "@/lib/db/num";
import { env } from "@/lib/env";
import { onInvalidation, publishInvalidation } from "@/lib/cache/bus";
import { textChange } from "@/lib/audit/detail";
import { type AuditBy, maskSecret, writeAudit } from "@/lib/audit/write";
import {
  crossKeyError,
  defaultOptionValues,
  defaultRaw,
  isOptionKey,
  isSecretOption,
  OPTION_KEYS,
  parseOption,
  readStoredOption,
  setLocalServerAddress,
  type OptionKey,
  type OptionValue,
  type OptionValues,
} from "@/lib/options/registry";
import { processSingleton } from "@/lib/singleton";
import { componentLogger } from "@/lib/log";

const log = componentLogger("options");

export type { OptionKey, OptionValue, OptionValues } from "@/lib/options/registry";

setLocalServerAddress(`http://localhost:${env.PORT}`);

type Snapshot = { values: OptionValues; raw: Record<OptionKey, string> };

/** One view of the options table. The process uses one (see `optionsCache`); tests make more. */
export class OptionsCache {
  private snapshot: Snapshot | null = null;
  private loading: Promise<Snapshot> | null = null;
  /** Bumped by every local write, so a reload that raced a write is redone. */
  private writes = 0;

  constructor(private readonly db: () => Promise<DirectDb> = getDirectDb) {}

  /** The current snapshot; loads it on first use. */
  async current(): Promise<Snapshot> {
    return this.snapshot ?? this.reload();
  }

  /** The current snapshot when one is loaded, else null (no load started). */
  peek(): Snapshot | null {
    return this.snapshot;
  }

  /** Re-reads every option from the database. Concurrent callers share one read. */
  reload(): Promise<Snapshot> {
    if (!this.loading) {
      this.loading = this.readAll().finally(() => {
        this.loading = null;
      });
    }
    return this.loading;
  }

  /** A reload that starts after now: a read already under way may predate a write just made. */
  reloadAfterWrite(): Promise<Snapshot> {
    return this.loading ? this.loading.catch(() => undefined).then(() => this.reload()) : this.reload();
  }

  private async readAll(): Promise<Snapshot> {
    for (;;) {
      const writesBefore = this.writes;
      const db = await this.db();
      const rows = await db.query('SELECT "key", "value" FROM options');
      // A local write that finished during the read may or may not be in `rows`; read again.
      if (this.writes !== writesBefore) continue;
      const next = defaultOptionValues() as { values: Record<OptionKey, unknown>; raw: Record<OptionKey, string> };
      for (const row of rows) {
        const key = str(row.key);
        if (!isOptionKey(key)) continue;
        const stored = readStoredOption(key, str(row.value));
        if (stored.invalid !== undefined) warnInvalidStored(key, str(row.value), stored.invalid);
        next.values[key] = stored.value;
        next.raw[key] = stored.raw;
      }
      this.snapshot = next as Snapshot;
      return this.snapshot;
    }
  }

  /** Validates and saves one option; the new value applies here at once. `by` audits the change. */
  async update(key: string, rawValue: string, by?: AuditBy): Promise<void> {
    const parsed = parseOption(key, rawValue);
    if (!parsed.ok) throw badRequest(parsed.message);
    const optionKey = key as OptionKey;
    const { values, raw: before } = await this.current();
    const conflict = crossKeyError(optionKey, parsed.value, values);
    if (conflict) throw badRequest(conflict);

    const db = await this.db();
    await db.execute(
      db.kind === "mysql"
        ? 'INSERT INTO options ("key", "value") VALUES (?, ?) ON DUPLICATE KEY UPDATE "value" = VALUES("value")'
        : 'INSERT INTO options ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO UPDATE SET "value" = excluded."value"',
      [optionKey, parsed.raw],
    );
    this.writes++;
    const snapshot = this.snapshot ?? (await this.current());
    this.snapshot = {
      values: { ...snapshot.values, [optionKey]: parsed.value },
      raw: { ...snapshot.raw, [optionKey]: parsed.raw },
    };
    // Answer once this instance's other processes (the relay workers) use the new value.
    await publishInvalidation({ kind: "options" });
    if (by && before[optionKey] !== parsed.raw) {
      const [from, to] = [before[optionKey], parsed.raw];
      const value = isSecretOption(optionKey) ? { from: maskSecret(from), to: maskSecret(to) } : textChange(from, to);
      await writeAudit({ ...by, action: "option.update", target_type: "option", target_id: optionKey, detail: { value } });
    }
  }
}

const warnedStoredValues = new Set<string>();

/** A stored value the rules refuse is said once per value, not on every periodic reload. */
function warnInvalidStored(option: OptionKey, raw: string, reason: string): void {
  if (warnedStoredValues.has(`${option}\0${raw}`)) return;
  warnedStoredValues.add(`${option}\0${raw}`);
  log.warn({ option, reason }, "stored option value is invalid; using the default");
}

type OptionsGlobal = { cache?: OptionsCache; timer?: ReturnType<typeof setInterval> };
const slot = processSingleton<OptionsGlobal>("options", () => ({}));

/** The process-wide cache, with its refresh timer started on first use. */
export function optionsCache(): OptionsCache {
  if (!slot.cache) {
    const cache = (slot.cache = new OptionsCache());
    // Another process or instance saved an option (or Redis is back after missing some): read
    // the table again now. (This process's own writes are already in the cache.)
    // The reload's promise tells the bus when this process uses the new values (lib/cache/bus.ts).
    onInvalidation((event, remote) => {
      if ((event.kind !== "options" && event.kind !== "resync") || !remote) return undefined;
      return cache.reloadAfterWrite().catch((err) => log.error({ err }, "reload failed"));
    });
  }
  if (!slot.timer && env.SYNC_FREQUENCY > 0) {
    const cache = slot.cache;
    slot.timer = setInterval(() => {
      cache.reload().catch((err) => log.error({ err }, "periodic reload failed"));
    }, env.SYNC_FREQUENCY * 1000);
    slot.timer.unref?.();
  }
  return slot.cache;
}

/** Every option's typed value: defaults overlaid with the stored rows. */
export async function getOptions(): Promise<OptionValues> {
  return (await optionsCache().current()).values;
}

/** The options when loaded, else null: for hot paths that fall back to getOptions(). */
export function loadedOptions(): OptionValues | null {
  return optionsCache().peek()?.values ?? null;
}

export async function getOption<K extends OptionKey>(key: K): Promise<OptionValue<K>> {
  return (await getOptions())[key];
}

/** The stored string of an option (what the settings page edits), e.g. Notice as Markdown. */
export async function getOptionRaw(key: OptionKey): Promise<string> {
  return (await optionsCache().current()).raw[key];
}

/**
 * Validates and saves one option. Throws ApiError(400) with the settings page's message for an
 * unknown key, a malformed value or a toggle whose prerequisites are missing.
 */
export async function updateOption(key: string, rawValue: string, by?: AuditBy): Promise<void> {
  await optionsCache().update(key, rawValue, by);
}

/**
 * One row of `GET /api/option/`. A secret (see lib/options/registry.ts) is listed without its
 * value: `value` is always "" and `set` says whether one is stored, so the settings page can show
 * that a secret is set without it ever leaving the server.
 */
export type ListedOption = { key: OptionKey; value: string } | { key: OptionKey; value: ""; secret: true; set: boolean };

/** Every option as stored strings, for the root settings pages; secrets only as set or not. */
export async function listOptions(): Promise<ListedOption[]> {
  const { raw } = await optionsCache().current();
  return [...OPTION_KEYS]
    .sort()
    .map((key) => (isSecretOption(key) ? { key, value: "", secret: true, set: raw[key] !== "" } : { key, value: raw[key] }));
}

/** Re-reads the options now instead of waiting for the next periodic refresh. */
export async function reloadOptions(): Promise<OptionValues> {
  return (await optionsCache().reload()).values;
}

/** `POST /api/option/rest_model_ratio`: puts the default ModelRatio table back. */
export async function resetModelRatio(by?: AuditBy): Promise<void> {
  await updateOption("ModelRatio", defaultRaw("ModelRatio"), by);
}
