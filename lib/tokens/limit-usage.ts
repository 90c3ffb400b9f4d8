// GET /api/token/:id/limits: the owner's key, its use now against its own limits (the popover of
// the token list fetches it when opened, so the numbers are live).
import { getDb } from "@/lib/db";
import { notFound } from "@/lib/errors";
import type { KeyLimitUsage } from "@/lib/limits/types";
import { keyLimitUsage } from "@/lib/limits/usage";
import type { TokenOwner } from "@/lib/tokens/manage";
import { TOKEN_MSG } from "@/lib/tokens/schemas";

export async function getTokenLimitUsage(owner: TokenOwner, id: number): Promise<KeyLimitUsage> {
  const db = await getDb();
  const token = await db.token.findFirst({
    where: { id, user_id: owner.id, deleted_at: null },
    select: { id: true, rpm_limit: true, tpm_limit: true, concurrency_limit: true, budget_quota: true, budget_period: true },
  });
  if (!token) throw notFound(TOKEN_MSG.notFound);
  return keyLimitUsage(token);
}
