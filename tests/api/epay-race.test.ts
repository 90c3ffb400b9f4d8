// Twenty copies of one EPay notice at once, on SQLite, PostgreSQL and MariaDB: ten from each of
// two processes (two instances, each with its own connections), each handed to the notify route's
// handler. The order is credited exactly once, with one log row, and every copy answers `success`
// (the gateway stops).
// @main-database none (describeOnEveryDatabase; scripts/database-tests.mjs).
import { expect, it } from "vitest";
import { newTradeNo } from "@/lib/payments/orders";
import { describeOnEveryDatabase, type RaceDatabase, race } from "@/tests/helpers/instance-process";
import { epayMerchantSign } from "@/tests/mocks/epay";

type Notice = { method: "GET" | "POST"; params: Record<string, string> };
type Result = { out_trade_no: string; status: number; text: string };

const PID = "1001";
const KEY = "race-merchant-key";
const QUOTA = 5_000_000n;

const startNotifier = (start: RaceDatabase["start"], notices: Notice[]) =>
  start<Result>("epay-notify-process.ts", { EPAY_NOTICES: JSON.stringify(notices) });

function notice(outTradeNo: string): Record<string, string> {
  const params: Record<string, string> = {
    pid: PID,
    trade_no: "2026112600001234",
    out_trade_no: outTradeNo,
    type: "alipay",
    name: "TUC10",
    money: "73.00",
    trade_status: "TRADE_SUCCESS",
  };
  return { ...params, sign: epayMerchantSign(params, KEY), sign_type: "MD5" };
}

describeOnEveryDatabase(
  (kind) => `EPay notices on ${kind}`,
  ({ t: db, start }) => {
    it("twenty duplicate notices from two instances at once: credited once, one log row, every copy answers success", async () => {
      const t = db();
      await t.db.option.createMany({
        data: [
          { key: "PayAddress", value: "https://pay.example.com" },
          { key: "EpayId", value: PID },
          { key: "EpayKey", value: KEY },
        ],
      });
      const user = await t.db.user.create({ data: { username: `race_${Math.random().toString(36).slice(2, 8)}`, password: "x" } });
      const tradeNo = newTradeNo(user.id);
      await t.db.topUp.create({
        data: { user_id: user.id, amount: 10, quota: QUOTA, money_cents: 7300, currency: "CNY", trade_no: tradeNo, payment_method: "zfb" },
      });
      const copies = (n: number): Notice[] =>
        Array.from({ length: n }, (_, i) => ({ method: i % 2 ? "POST" : "GET", params: notice(tradeNo) }));
      const results = await race([startNotifier(start, copies(10)), startNotifier(start, copies(10))]);
      expect(results).toHaveLength(20);
      for (const r of results) expect(r).toEqual({ out_trade_no: tradeNo, status: 200, text: "success" });

      const row = await t.db.user.findUniqueOrThrow({ where: { id: user.id } });
      expect(row.quota).toBe(QUOTA);
      const order = await t.db.topUp.findUniqueOrThrow({ where: { trade_no: tradeNo } });
      expect(order).toMatchObject({ status: "success", gateway_ref: "2026112600001234", completed_by: 0 });
      const logs = await t.db.log.findMany({ where: { type: 1 } });
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ user_id: user.id, quota: QUOTA });
      expect(logs[0]!.content).toContain(tradeNo);
    });

    it("a signed notice naming the order in other letter case names no order (MariaDB's collation would match it)", async () => {
      const t = db();
      const user = await t.db.user.create({ data: { username: `case_${Math.random().toString(36).slice(2, 8)}`, password: "x" } });
      const tradeNo = newTradeNo(user.id);
      await t.db.topUp.create({
        data: { user_id: user.id, amount: 10, quota: QUOTA, money_cents: 7300, currency: "CNY", trade_no: tradeNo, payment_method: "zfb" },
      });
      // Alone in its process: Prisma batches concurrent lookups and matches their rows back exactly.
      const alone = startNotifier(start, [{ method: "GET", params: notice(tradeNo.toLowerCase()) }]);
      expect(await race([alone])).toEqual([{ out_trade_no: tradeNo.toLowerCase(), status: 200, text: "fail" }]);
      expect((await t.db.user.findUniqueOrThrow({ where: { id: user.id } })).quota).toBe(0n);
      expect(await t.db.topUp.findUniqueOrThrow({ where: { trade_no: tradeNo } })).toMatchObject({ status: "pending" });
    });
  },
);
