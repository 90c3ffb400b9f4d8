// The relay's in-memory view of keys, users and channels, so that a request in the steady state
// reads nothing from the database. Entries load on first use, are dropped when a write publishes
// an invalidation (lib/cache/bus.ts; across instances through Redis when configured), and are all
// dropped every SYNC_FREQUENCY seconds: without Redis, that is how another instance's change arrives. Kept on globalThis so Next's bundles and
// the edge server share one copy.
import { getDirectDb } from "@/lib/db/direct";
import { big, int, str } from "@/lib/db/num";
import { env } from "@/lib/env";
import { onInvalidation, type CacheEvent } from "@/lib/cache/bus";
import { bridgeInstances } from "@/lib/cache/redis-bus";
import { getProvider, isTasksOnlyType } from "@/lib/relay/providers";
import { loadChannelsForRouting, type RoutingChannel } from "@/lib/channels/routing";
import { parseCidrList, type Cidr } from "@/lib/net/ip";
import { toChannelConfig } from "@/lib/relay/memory/channel";
import type { ChannelConfig } from "@/lib/relay/types";
import { findTokenByKey } from "@/lib/tokens/relay";
import { tokenRemainNow } from "@/lib/billing/visible";
import { hashTokenKey } from "@/lib/tokens/keys";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { isMultiKeyMode, splitChannelKeys } from "@/lib/channels/keys";
import { channelKeyHash } from "@/lib/channels/key-hash";
import { processSingleton } from "@/lib/singleton";
import type { RoutingStrategy } from "@/lib/limits/types";
import { blockedChannels, startBreakers } from "@/lib/channels/breaker";
import { chooseByLoad, heldOpen, type PickNote, soonestToReopen } from "@/lib/relay/routing/strategy";

export type KeyEntry = {
  id: number;
  keyHash: string;
  userId: number;
  name: string;
  status: number;
  expiredTime: number;
  unlimited: boolean;
  /**
   * A limited key's quota left when loaded (tokenRemainNow's `left`: remain_quota plus its open
   * leases' unused part, requests in flight counted as unspent), or later seen spent. Only read
   * as "spent or not" (quotaSpent): the ledger's conditional update decides every reservation.
   */
  remainHint: bigint;
  modelLimits: Set<string> | null;
  allowIps: Cidr[] | null;
  group: string;
  /** The key's own limits (lib/limits/rules.ts KeyLimits): 0 / "" = none. */
  rpmLimit: number;
  tpmLimit: number;
  concurrencyLimit: number;
  budgetQuota: number;
  budgetPeriod: string;
};

export type UserEntry = {
  id: number;
  username: string;
  status: number;
  role: number;
  group: string;
  deleted: boolean;
  /** Balance when loaded; only sizes leases. */
  quotaHint: bigint;
};

/** One key of a multi-key channel, in the order of the key field. */
export type RouteKey = {
  text: string;
  /** channel_keys.key_hash (lib/channels/key-hash.ts). */
  hash: string;
  /** Its place in the key field, from 0: the console's key_index and the log's multi_key_index. */
  index: number;
  enabled: boolean;
};

export type RouteChannel = {
  config: ChannelConfig;
  row: RoutingChannel;
  /** A multi-key channel's keys (lib/relay/memory/channel-keys.ts picks one per attempt); null = one key, `config.key`. */
  keys: RouteKey[] | null;
};

type Tier = { priority: number; channels: RouteChannel[]; weights: number[]; total: number };

export type RoutingTable = {
  /** group → model → tiers by priority, highest first; only enabled channels of relayed types. */
  byGroupModel: Map<string, Map<string, Tier[]>>;
  /**
   * The same for enabled channels of task-only types (Midjourney, Suno): only their task routes
   * pick from it (lib/tasks/submit.ts), so a chat call never lands on one and /v1/models lists none.
   */
  tasksByGroupModel: Map<string, Map<string, Tier[]>>;
  /** Every channel by id, enabled or not (for pinned requests and the admin's key pinning). */
  byId: Map<number, RouteChannel>;
  /** group → models reachable, for /v1/models. */
  modelsByGroup: Map<string, string[]>;
};

type State = {
  /** Raw key → entry (only live tokens; unknown keys go to keyMisses by hash). */
  keys: Map<string, KeyEntry>;
  keyMisses: Map<string, number>;
  users: Map<number, UserEntry | null>;
  routing: RoutingTable | null;
  routingLoad: Promise<RoutingTable> | null;
  generation: number;
  timer: NodeJS.Timeout | null;
  unsubscribe: (() => void) | null;
};

const state = processSingleton<State>("relayState", () => ({
  keys: new Map(),
  keyMisses: new Map(),
  users: new Map(),
  routing: null,
  routingLoad: null,
  generation: 0,
  timer: null,
  unsubscribe: null,
}));

/** A key that is not in the database is remembered this long, so bad keys cannot flood the DB. */
const MISS_TTL_MS = 30_000;
const MAX_MISSES = 10_000;
const MAX_KEYS = 100_000;

function onEvent(event: CacheEvent) {
  switch (event.kind) {
    case "channels":
      state.routing = null;
      state.generation++;
      break;
    case "token":
      for (const [k, e] of state.keys) if (e && (e.keyHash === event.keyHash || e.id === event.id)) state.keys.delete(k);
      if (event.keyHash) state.keyMisses.delete(event.keyHash);
      break;
    case "user":
      state.users.delete(event.id);
      break;
    case "resync":
      dropAll();
      break;
    case "options":
    case "breaker":
      break;
  }
}

function dropAll() {
  state.keys.clear();
  state.keyMisses.clear();
  state.users.clear();
  state.routing = null;
  state.generation++;
}

/**
 * Subscribes to invalidations (with Redis, other instances' too) and starts the periodic
 * refresh (once per process). Without Redis the refresh is how other instances' changes arrive.
 */
export function startRelayState() {
  if (!state.unsubscribe) state.unsubscribe = onInvalidation(onEvent);
  startBreakers();
  bridgeInstances();
  if (!state.timer && env.SYNC_FREQUENCY > 0) {
    state.timer = setInterval(dropAll, env.SYNC_FREQUENCY * 1000);
    state.timer.unref();
  }
}

/** The cached entry of a key: the entry, or undefined when it is not in memory (see keyEntry). */
export function cachedKeyEntry(key48: string): KeyEntry | undefined {
  return state.keys.get(key48);
}

/** The cached entry of a user: the entry, null for a user known not to exist, undefined when not in memory. */
export function cachedUserEntry(id: number): UserEntry | null | undefined {
  return state.users.get(id);
}

/** The routing table when it is in memory, else null (see routingTable). */
export function cachedRoutingTable(): RoutingTable | null {
  return state.routing;
}

/**
 * The live token of a 48-character key, or null. Cached by the key itself, so a hit costs no
 * hashing; the database is asked by hash.
 */
export async function keyEntry(key48: string): Promise<KeyEntry | null> {
  const cached = state.keys.get(key48);
  if (cached !== undefined) return cached;
  const hash = hashTokenKey(key48);
  const missAt = state.keyMisses.get(hash);
  if (missAt !== undefined && Date.now() - missAt < MISS_TTL_MS) return null;
  const row = await findTokenByKey(key48);
  if (!row) {
    if (state.keyMisses.size >= MAX_MISSES) state.keyMisses.clear();
    state.keyMisses.set(hash, Date.now());
    return null;
  }
  const limits = row.model_limits_enabled
    ? new Set(
        row.model_limits
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      )
    : null;
  const ips = row.allow_ips.trim() ? parseCidrList(row.allow_ips).cidrs : null;
  const entry: KeyEntry = {
    id: row.id,
    keyHash: hash,
    userId: row.user_id,
    name: row.name,
    status: row.status,
    expiredTime: row.expired_time,
    unlimited: row.unlimited_quota,
    remainHint: row.unlimited_quota ? row.remain_quota : ((await tokenRemainNow(row.id))?.left ?? row.remain_quota),
    modelLimits: limits,
    allowIps: ips?.length ? ips : null,
    group: row.group,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
    concurrencyLimit: row.concurrency_limit,
    budgetQuota: Number(row.budget_quota),
    budgetPeriod: row.budget_period,
  };
  if (state.keys.size >= MAX_KEYS) state.keys.clear();
  state.keys.set(key48, entry);
  return entry;
}

export async function userEntry(id: number): Promise<UserEntry | null> {
  const cached = state.users.get(id);
  if (cached !== undefined) return cached;
  const db = await getDirectDb();
  const [row] = await db.query('SELECT id, username, status, role, "group", deleted_at, quota FROM users WHERE id = ?', [id]);
  const entry: UserEntry | null = row
    ? {
        id: int(row.id),
        username: str(row.username),
        status: int(row.status),
        role: int(row.role),
        group: str(row.group),
        deleted: row.deleted_at != null,
        quotaHint: big(row.quota),
      }
    : null;
  state.users.set(id, entry);
  return entry;
}

function addToTiers(byGroupModel: Map<string, Map<string, Tier[]>>, rc: RouteChannel, names: ((group: string) => Set<string>) | null) {
  const row = rc.row;
  for (const group of row.groups) {
    let models = byGroupModel.get(group);
    if (!models) byGroupModel.set(group, (models = new Map()));
    const listed = names?.(group);
    for (const model of row.models) {
      listed?.add(model);
      let tiers = models.get(model);
      if (!tiers) models.set(model, (tiers = []));
      let tier = tiers.find((t) => t.priority === row.priority);
      if (!tier) {
        tier = { priority: row.priority, channels: [], weights: [], total: 0 };
        tiers.push(tier);
        tiers.sort((a, b) => b.priority - a.priority);
      }
      // new-api's smoothing: weight 0 channels still get traffic.
      const w = Math.max(0, row.weight) + 10;
      tier.channels.push(rc);
      tier.weights.push(w);
      tier.total += w;
    }
  }
}

function buildRouting(channels: RoutingChannel[]): RoutingTable {
  const byId = new Map<number, RouteChannel>();
  const byGroupModel = new Map<string, Map<string, Tier[]>>();
  const tasksByGroupModel = new Map<string, Map<string, Tier[]>>();
  const modelsByGroup = new Map<string, Set<string>>();
  const namesOf = (group: string) => {
    let names = modelsByGroup.get(group);
    if (!names) modelsByGroup.set(group, (names = new Set()));
    return names;
  };
  for (const row of channels) {
    const keys = routeKeys(row);
    const rc: RouteChannel = {
      row,
      config: toChannelConfig(row),
      keys,
    };
    byId.set(row.id, rc);
    if (row.status !== CHANNEL_STATUS.enabled) continue;
    // A multi-key channel whose keys are all disabled serves nothing, like a disabled channel.
    if (keys && !keys.some((k) => k.enabled)) continue;
    // A type nothing serves (lib/relay/providers) never takes traffic; a task-only type only task traffic.
    if (getProvider(row.type)) addToTiers(byGroupModel, rc, namesOf);
    else if (isTasksOnlyType(row.type)) addToTiers(tasksByGroupModel, rc, null);
  }
  return {
    byId,
    byGroupModel,
    tasksByGroupModel,
    modelsByGroup: new Map([...modelsByGroup].map(([g, s]) => [g, [...s].sort()])),
  };
}

/** A multi-key channel's keys with their state; null for a channel of one key. */
function routeKeys(row: RoutingChannel): RouteKey[] | null {
  if (!isMultiKeyMode(row.multi_key_mode)) return null;
  return splitChannelKeys(row.type, row.key, row.multi_key_mode).map((text, index) => {
    const hash = channelKeyHash(text);
    return { text, hash, index, enabled: !row.disabled_keys.has(hash) };
  });
}

export async function routingTable(): Promise<RoutingTable> {
  if (state.routing) return state.routing;
  if (!state.routingLoad) {
    const generation = state.generation;
    state.routingLoad = loadChannelsForRouting()
      .then((channels) => {
        const table = buildRouting(channels);
        // A write that landed while loading invalidated this table: use it once, then reload.
        if (generation === state.generation) state.routing = table;
        return table;
      })
      .finally(() => {
        state.routingLoad = null;
      });
  }
  return state.routingLoad;
}

/**
 * Picks a channel for (group, model): the highest-priority tier that still has channels not yet
 * tried, weighted random inside it (weight + 10), or the group's other strategy (`strategy`,
 * lib/relay/routing/strategy.ts). Returns null when every channel was tried.
 * `tiersOf`: the relayed channels by default; a task route passes the task-only ones.
 *
 * `preferred` (a session's sticky channel, lib/relay/memory/session-sticky.ts) is taken when it is
 * in that tier and untried: the tiers hold only enabled channels serving the model in the group,
 * so a disabled or reassigned channel is never preferred. It never outranks a higher tier: a
 * session that moved to a backup channel returns to the primary once that serves again.
 *
 * A channel whose circuit breaker is open (lib/channels/breaker.ts) is passed over (and
 * noted in `note`); when nothing else is left, the one whose cool-down ends first is taken.
 */
export function pickChannel(
  table: RoutingTable,
  group: string,
  model: string,
  tried: ReadonlySet<number>,
  preferred: number | null = null,
  random = Math.random,
  tiersOf: RoutingTable["byGroupModel"] = table.byGroupModel,
  strategy: RoutingStrategy = "weighted",
  note: PickNote | null = null,
): RouteChannel | null {
  const tiers = tiersOf.get(group)?.get(model);
  if (!tiers) return null;
  // Empty in the steady state: then no channel costs a lookup.
  const open = blockedChannels.size > 0 ? blockedChannels : null;
  const now = open ? Date.now() : 0;
  for (const tier of tiers) {
    if (strategy !== "weighted") {
      const chosen = chooseByLoad(tier, strategy, tried, preferred, open, now, random, note);
      if (chosen) return chosen;
      continue;
    }
    let total = 0;
    let sticky: RouteChannel | null = null;
    for (let i = 0; i < tier.channels.length; i++) {
      const id = tier.channels[i]!.row.id;
      if (tried.has(id) || (open && heldOpen(open, id, now, note))) continue;
      total += tier.weights[i]!;
      if (id === preferred) sticky = tier.channels[i]!;
    }
    if (total === 0) continue;
    if (sticky) return sticky;
    let r = random() * total;
    for (let i = 0; i < tier.channels.length; i++) {
      const id = tier.channels[i]!.row.id;
      if (tried.has(id) || (open && heldOpen(open, id, now, null))) continue;
      r -= tier.weights[i]!;
      if (r < 0) return tier.channels[i]!;
    }
    // Floating point left r at the boundary: take the last untried one.
    for (let i = tier.channels.length - 1; i >= 0; i--) {
      const id = tier.channels[i]!.row.id;
      if (!tried.has(id) && !(open && heldOpen(open, id, now, null))) return tier.channels[i]!;
    }
  }
  return open ? soonestToReopen(tiers, tried, open) : null;
}

/** Drops everything; tests use it between scenarios. */
export function resetRelayState() {
  dropAll();
}
