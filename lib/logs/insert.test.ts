import { describe, expect, it } from "vitest";
import type { LogRow } from "@/lib/logs/insert";
import { logInsertStatements } from "./insert";

const row = (i: number): LogRow => ({
  user_id: 1,
  created_at: 1_700_000_000 + i,
  type: 2,
  content: `row ${i}`,
  username: "u",
  token_name: "t",
  model_name: "m",
  quota: BigInt(i),
  prompt_tokens: i,
  completion_tokens: 0,
  use_time: 0,
  is_stream: false,
  channel_id: 1,
  token_id: 1,
  group: "default",
  request_id: `r${i}`,
  other: "{}",
});

describe("log insert statements", () => {
  it("cut a batch into a few fixed sizes, every row once and in order", () => {
    const rows = Array.from({ length: 1237 }, (_, i) => row(i));
    const statements = logInsertStatements("sqlite", rows);
    const sizes = statements.map((s) => s.params.length / 17);
    expect(sizes).toEqual([500, 500, 100, 100, 20, 5, 5, 5, 1, 1]);
    // Only five distinct statements can ever exist, whatever the batch sizes.
    expect(new Set(statements.map((s) => s.sql)).size).toBe(5);
    const quotas = statements.flatMap((s) => s.params.filter((_, i) => i % 17 === 7));
    expect(quotas).toEqual(rows.map((r) => r.quota));
  });

  it("write nothing for no rows, and quote columns per database", () => {
    expect(logInsertStatements("postgresql", [])).toEqual([]);
    expect(logInsertStatements("mysql", [row(1)])[0]!.sql).toContain("`group`");
    expect(logInsertStatements("postgresql", [row(1)])[0]!.sql).toContain('"group"');
  });
});
