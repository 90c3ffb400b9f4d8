// The import report as the CLI prints it, as JSON (bigints as decimal strings), and the progress line.
import type { ImportProgress, ImportReport } from "@/lib/import-new-api/run";

const SUM_LABELS: Record<keyof ImportReport["sums"], string> = {
  users_quota: "用户剩余额度 users.quota",
  users_used_quota: "用户已用额度 users.used_quota",
  tokens_remain_quota: "令牌剩余额度 tokens.remain_quota（不含无限额度）",
  redemptions_unused_quota: "未使用兑换码面值 redemptions.quota",
};

const clock = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h ? `${h}:` : ""}${String(m).padStart(h ? 2 : 1, "0")}:${String(s % 60).padStart(2, "0")}`;
};

/** `logs [########------------] 40% 400000/1000000 52000 行/秒 剩余 0:11` */
export function formatProgress(p: ImportProgress, now: number): string {
  const share = p.total ? Math.min(1, p.done / p.total) : 1;
  const width = 24;
  const filled = Math.round(share * width);
  const elapsed = Math.max(0.001, (now - p.startedAt) / 1000);
  const rate = p.done / elapsed;
  const eta = rate > 0 ? (p.total - p.done) / rate : 0;
  return `${p.table.padEnd(11)} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${Math.floor(share * 100)
    .toString()
    .padStart(3)}% ${p.done}/${p.total} ${Math.round(rate)} 行/秒 剩余 ${clock(eta)}`;
}

export function formatReport(r: ImportReport): string {
  const out: string[] = [];
  out.push(`源：${r.source.kind}，${r.source.flavor}（${r.source.id}）`);
  out.push(
    r.applied ? (r.interrupted ? "导入中断：再次运行会从中断处继续。" : "已导入。") : "试运行：没有写入任何数据。加 --apply 开始导入。",
  );
  out.push("", `表            源行数    已导入过   ${r.applied ? "本次导入" : "  将导入"}   冲突   无法导入`);
  for (const t of r.tables) {
    out.push(
      `${t.table.padEnd(12)} ${String(t.rows).padStart(8)} ${String(t.already).padStart(10)} ${String(t.imported).padStart(10)} ${String(t.conflicts).padStart(6)} ${String(t.unmappable).padStart(10)}`,
    );
  }
  if (r.problems.length) {
    out.push("", "冲突与无法导入的行（未写入）：");
    for (const p of r.problems) out.push(`  ${p.table} #${p.id}：${p.reason}`);
  }
  if (r.notes.length) {
    out.push("", "导入时有改动的行：");
    for (const p of r.notes) out.push(`  ${p.table}${p.id ? ` #${p.id}` : ""}：${p.reason}`);
  }
  const dropped = Object.entries(r.droppedColumns);
  if (dropped.length) {
    out.push("", "Qiao 没有对应字段、未导入的列（有值的行数）：");
    for (const [col, n] of dropped) out.push(`  ${col}：${n}`);
  }
  if (r.abilityDiffs.length) {
    out.push("", "能力（abilities）按渠道的模型和分组重建，与源不同的渠道：");
    for (const d of r.abilityDiffs) out.push(`  渠道 #${d.channel}：源 ${d.source} 条，重建 ${d.rebuilt} 条`);
  }
  const o = r.options;
  out.push("", `设置：导入 ${o.imported.length} 项，相同 ${o.same.length} 项，冲突 ${o.conflicts.length} 项，无效 ${o.invalid.length} 项`);
  for (const c of o.conflicts) out.push(`  冲突 ${c.key}：${c.reason}`);
  for (const c of o.invalid) out.push(`  无效 ${c.key}：${c.reason}`);
  if (o.unsupported.length) out.push(`  Qiao 没有的设置项（未导入）：${o.unsupported.join(", ")}`);
  out.push("", "额度核对（源 − 跳过 = 应导入；导入后 Qiao 中的值）：");
  for (const [name, s] of Object.entries(r.sums) as [keyof ImportReport["sums"], ImportReport["sums"][keyof ImportReport["sums"]]][]) {
    const after = s.target === null ? "" : `，Qiao ${s.target}${s.equal ? " 相等" : " 不相等！"}`;
    out.push(`  ${SUM_LABELS[name]}：源 ${s.source} − 跳过 ${s.skipped} = ${s.expected}${after}`);
  }
  return out.join("\n");
}

/** The report with its bigints as strings, for JSON. */
export function reportJson(r: ImportReport): unknown {
  return JSON.parse(JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
}
