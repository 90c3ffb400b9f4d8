// The abilities table is the routing index: one row per (group, model, channel), derived from the
// channel's comma lists. It is rebuilt (delete + insert) inside the transaction that writes the
// channel, so the two never disagree.
import type { Db } from "@/lib/db";
import type { Prisma } from "@/lib/db/generated/sqlite/client";
import { CHANNEL_STATUS, splitList } from "@/lib/channels/fields";

type Tx = Prisma.TransactionClient | Db;

export type AbilitySource = { id: number; models: string; group: string; priority: number; weight: number; status: number };

const INSERT_CHUNK = 500;

export function abilityRowsFor(ch: AbilitySource): Prisma.AbilityCreateManyInput[] {
  const models = splitList(ch.models);
  return splitList(ch.group).flatMap((group) =>
    models.map((model) => ({
      group,
      model,
      channel_id: ch.id,
      enabled: ch.status === CHANNEL_STATUS.enabled,
      priority: ch.priority,
      weight: ch.weight,
    })),
  );
}

async function insertAbilities(tx: Tx, rows: Prisma.AbilityCreateManyInput[]) {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await tx.ability.createMany({ data: rows.slice(i, i + INSERT_CHUNK) });
  }
}

/** Replaces one channel's ability rows. Call inside the transaction that wrote the channel. */
export async function rebuildAbilities(tx: Tx, ch: AbilitySource): Promise<void> {
  await tx.ability.deleteMany({ where: { channel_id: ch.id } });
  await insertAbilities(tx, abilityRowsFor(ch));
}

const ABILITY_SOURCE_SELECT = { id: true, models: true, group: true, priority: true, weight: true, status: true } as const;

/** Rebuilds the whole table from the channels (POST /api/channel/fix); returns the channel count. */
export async function rebuildAllAbilities(tx: Tx): Promise<number> {
  const channels = await tx.channel.findMany({ select: ABILITY_SOURCE_SELECT, orderBy: { id: "asc" } });
  await tx.ability.deleteMany({});
  await insertAbilities(tx, channels.flatMap(abilityRowsFor));
  return channels.length;
}
