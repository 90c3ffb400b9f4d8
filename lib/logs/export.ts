// The log as a CSV file (GET /api/log/export, admin: every user's rows; GET /api/log/self/export:
// the caller's own): the filters of the list, the table's columns (per role) with Chinese headers,
// read in keyset batches (lib/logs/query.ts) and streamed, so any number of rows downloads with
// flat memory. A cell reads as the table's: the type's label, the time in the viewer's zone, tokens
// for consumption rows, the retry chain. Quota is written in raw units (the 花费（额度） column), not
// in the currency the table may show: an integer sums exactly in a spreadsheet, and
// QuotaPerUnit converts it (500 000 = US$1 by default).
import { z } from "zod";
import { nowSeconds } from "@/lib/db/num";
import { type CsvValue, csvStream } from "@/lib/logs/csv";
import { firstTokenSeconds, logTypeLook, parseOther, retryChain } from "@/lib/logs/display";
import { type AdminLogItem, adminLogBatches, logQuerySchema, type SelfLogItem, userLogBatches } from "@/lib/logs/query";
import { LOG_TYPE } from "@/lib/logs/write";
import { formatTimestamp, validTimeZone } from "@/lib/ui/format";

/** The list's filters, and the viewer's IANA time zone for the time column (the server's when absent). */
export const logExportQuery = logQuerySchema.extend({ tz: z.string().optional() });
export type LogExportQuery = z.output<typeof logExportQuery>;

type Row = SelfLogItem & Partial<Pick<AdminLogItem, "id" | "channel">>;

type Column = { title: string; admin?: true; cell: (row: Row, timeZone: string | undefined) => CsvValue };

const isConsume = (row: Row) => row.type === LOG_TYPE.consume;
const hasLatency = (row: Row) => row.type === LOG_TYPE.consume || row.type === LOG_TYPE.error;

/** The table's columns (components/logs/log-columns.tsx), its 用时/首字 cell split in three. */
const COLUMNS: Column[] = [
  { title: "时间", cell: (row, tz) => formatTimestamp(row.created_at, tz) },
  { title: "渠道", admin: true, cell: (row) => row.channel || "" },
  { title: "用户", admin: true, cell: (row) => row.username },
  { title: "令牌", cell: (row) => row.token_name },
  { title: "类型", cell: (row) => logTypeLook(row.type).label },
  { title: "模型", cell: (row) => row.model_name },
  { title: "用时（秒）", cell: (row) => (hasLatency(row) ? row.use_time : "") },
  {
    title: "首字（秒）",
    cell: (row) => {
      const frt = hasLatency(row) && row.is_stream ? firstTokenSeconds(parseOther(row.other)) : null;
      return frt === null ? "" : Number(frt.toFixed(3));
    },
  },
  { title: "流式", cell: (row) => (hasLatency(row) ? (row.is_stream ? "流" : "非流") : "") },
  { title: "提示", cell: (row) => (isConsume(row) ? row.prompt_tokens : "") },
  { title: "补全", cell: (row) => (isConsume(row) ? row.completion_tokens : "") },
  { title: "花费（额度）", cell: (row) => (isConsume(row) || row.quota !== 0 ? row.quota : "") },
  {
    title: "重试",
    admin: true,
    cell: (row) => {
      const chain = retryChain(parseOther(row.other));
      return chain.length < 2 ? "" : `渠道：${chain.join(" → ")}`;
    },
  },
  { title: "详情", cell: (row) => row.content },
];

export const exportColumns = (admin: boolean) => COLUMNS.filter((c) => admin || !c.admin);

/** `logs-20260102-150405.csv`, in the viewer's zone. */
export function exportFileName(now: number, timeZone?: string): string {
  return `logs-${formatTimestamp(now, timeZone).replace(/[-:]/g, "").replace(" ", "-")}.csv`;
}

async function* lines(batches: AsyncGenerator<Row[]>, columns: Column[], timeZone: string | undefined) {
  for await (const batch of batches) yield batch.map((row) => columns.map((c) => c.cell(row, timeZone)));
}

function csvResponse(admin: boolean, q: LogExportQuery, batches: AsyncGenerator<Row[]>): Response {
  const timeZone = validTimeZone(q.tz);
  const columns = exportColumns(admin);
  const body = csvStream(
    columns.map((c) => c.title),
    lines(batches, columns, timeZone),
  );
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${exportFileName(nowSeconds(), timeZone)}"`,
      "cache-control": "no-store",
    },
  });
}

/** GET /api/log/export (admin). */
export const exportLogs = (q: LogExportQuery) => csvResponse(true, q, adminLogBatches(q));

/** GET /api/log/self/export: the caller's rows only, without ids, channels or admin_info. */
export const exportUserLogs = (userId: number, q: LogExportQuery) => csvResponse(false, q, userLogBatches(userId, q));
