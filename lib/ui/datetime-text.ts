// The text of a date-and-time field, written the way the tables write times (issue 20.23):
// "2026-11-24 15:04:05", 24-hour, whatever the browser's locale. Chromium draws a native
// datetime-local input in the locale of its own build (US "11/24/2026, 03:04:05 PM" here, even
// with lang="zh-CN"), so the console's fields are text fields that parse this format and hand
// their owner the same "YYYY-MM-DDTHH:mm[:ss]" value a datetime-local input would.

export const DATETIME_TEXT_HINT = "YYYY-MM-DD HH:mm:ss";

const pad = (n: number) => String(n).padStart(2, "0");

/** "2026-11-24T15:04:05" (a datetime-local value) as the field shows it: "2026-11-24 15:04:05". */
export function dateTimeText(value: string): string {
  return value.replace("T", " ");
}

/**
 * What was typed, as a datetime-local value: "" for an empty field, null when it is not a real
 * date and 24-hour time. Accepts "-" or "/" between date parts, a space or "T" before the time,
 * and seconds or not (kept as given).
 */
export function parseDateTimeText(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed) return "";
  const m = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[ T]+(\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(trimmed);
  if (!m) return null;
  const [year, month, day, hour = 0, minute = 0] = m.slice(1, 6).map((v) => (v === undefined ? undefined : Number(v))) as number[];
  const second = m[6] === undefined ? null : Number(m[6]);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || (second ?? 0) > 59) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return null;
  const time = `${pad(hour)}:${pad(minute)}${second === null ? "" : `:${pad(second)}`}`;
  return `${year}-${pad(month)}-${pad(day)}T${time}`;
}
