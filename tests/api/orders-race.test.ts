// An admin's 标记已支付 racing the gateway's notifications and other admins for the same orders, on
// SQLite, PostgreSQL and MariaDB: two instances (two processes, each with its own connections),
// each marking orders paid while crediting them five times through creditOrder (or twice marking
// them paid), all at once (Promise.all). Each order is credited exactly once: one balance
// increase, one top-up log row, and an audit row only when an admin's call is the one that won.
// @main-database none (describeOnEveryDatabase; scripts/database-tests.mjs).
import { expect, it } from "vitest";
import { ORDER_MSG } from "@/lib/payments/order-view";
import { describeOnEveryDatabase, type RaceDatabase, race } from "@/tests/helpers/instance-process";

type Job =
  | { kind: "admin"; tradeNo: string; admin: { id: number; username: string; role: number } }
  | { kind: "gateway"; tradeNo: string; paidCents: number };
type Result = Job & { credited: boolean; message: string };

const ORDERS = 4;
const NOTIFICATIONS = 5;
const QUOTA = 5_000_000n;
const CENTS = 7300;

const startCrediter = (start: RaceDatabase["start"], jobs: Job[]) =>
  start<Result>("order-credit-process.ts", { ORDER_JOBS: JSON.stringify(jobs) });

describeOnEveryDatabase(
  (kind) => `marking orders paid on ${kind}`,
  ({ t: db, start }) => {
    it("admins marking orders paid against five notifications each, and against each other, from two instances at once: each order credits once", async () => {
      const t = db();
      const tag = Math.random().toString(36).slice(2, 8);
      const admin = await t.db.user.create({ data: { username: `radmin_${tag}`, password: "x", role: 10 } });
      const user = await t.db.user.create({ data: { username: `rbuyer_${tag}`, password: "x" } });
      const orders: { id: number; trade_no: string }[] = [];
      for (let i = 0; i < ORDERS; i++) {
        orders.push(
          await t.db.topUp.create({
            data: {
              user_id: user.id,
              amount: 10,
              quota: QUOTA,
              money_cents: CENTS,
              currency: "CNY",
              trade_no: `USR${user.id}NO${tag}${i}`,
              payment_method: "zfb",
              create_time: 1_700_000_000 + i,
              status: "pending",
            },
          }),
        );
      }
      const actor = { id: admin.id, username: admin.username, role: 10 };
      // Even orders: the admin against the gateway. Odd orders: admins only (two admins at once in
      // each instance, as when two admins press the button together), so an admin wins some.
      const adminOnly = (i: number) => i % 2 === 1;
      const jobs = (): Job[] =>
        orders.flatMap((o, i) =>
          adminOnly(i)
            ? [
                { kind: "admin" as const, tradeNo: o.trade_no, admin: actor },
                { kind: "admin" as const, tradeNo: o.trade_no, admin: actor },
              ]
            : [
                { kind: "admin" as const, tradeNo: o.trade_no, admin: actor },
                ...Array.from({ length: NOTIFICATIONS }, () => ({ kind: "gateway" as const, tradeNo: o.trade_no, paidCents: CENTS })),
              ],
        );
      const results = await race([startCrediter(start, jobs()), startCrediter(start, jobs())]);

      expect(results).toHaveLength(2 * (ORDERS / 2) * (1 + NOTIFICATIONS) + 2 * (ORDERS / 2) * 2);
      for (const r of results.filter((x) => !x.credited)) {
        expect(r.message).toBe(r.kind === "admin" ? ORDER_MSG.alreadyPaid : "already");
      }
      const audits = await t.db.auditLog.findMany({ where: { action: "topup.complete" } });
      const logs = await t.db.log.findMany({ where: { type: 1 } });
      for (const [i, o] of orders.entries()) {
        const winners = results.filter((r) => r.tradeNo === o.trade_no && r.credited);
        expect(winners, o.trade_no).toHaveLength(1);
        if (adminOnly(i)) expect(winners[0]!.kind).toBe("admin");
        const row = await t.db.topUp.findUniqueOrThrow({ where: { id: o.id } });
        expect(row.status).toBe("success");
        const byAdmin = winners[0]!.kind === "admin";
        expect(row.completed_by).toBe(byAdmin ? admin.id : 0);
        expect(row.gateway_ref).toBe(byAdmin ? "" : `gw-${o.trade_no}`);
        expect(logs.filter((l) => l.content.includes(o.trade_no))).toHaveLength(1);
        expect(audits.filter((a) => a.target_id === String(o.id))).toHaveLength(byAdmin ? 1 : 0);
      }
      const buyer = await t.db.user.findUniqueOrThrow({ where: { id: user.id } });
      expect(buyer.quota).toBe(QUOTA * BigInt(ORDERS));
    });
  },
);
