// "How long ago" as the console says it (a session's last activity): 刚刚, N 分钟前, N 小时前, N 天前,
// and the date itself past a month, when "N 天前" stops being easier to read than the date.
import { formatTimestamp } from "@/lib/ui/format";

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MONTH = 30 * DAY;

/** `seconds` (Unix) relative to `now` (Unix seconds); a time in the future reads as 刚刚 (clock skew). */
export function relativeTime(seconds: number, now: number, timeZone?: string): string {
  const ago = now - seconds;
  if (ago < MINUTE) return "刚刚";
  if (ago < HOUR) return `${Math.floor(ago / MINUTE)} 分钟前`;
  if (ago < DAY) return `${Math.floor(ago / HOUR)} 小时前`;
  if (ago < MONTH) return `${Math.floor(ago / DAY)} 天前`;
  return formatTimestamp(seconds, timeZone).slice(0, 10);
}
