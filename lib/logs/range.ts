// The log page's default time range (spec §9): from 00:00 today in the viewer's time zone to one
// hour ahead. Pure, so the server render, the filter form and the benchmark agree.

import { INT_COLUMN_MAX } from "@/lib/db/num";

const HOUR = 3600;

/** Unix seconds of 00:00 of the day `seconds` falls on, in `timeZone` (the runtime's when absent). */
export function startOfDay(seconds: number, timeZone?: string): number {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  }).formatToParts(new Date(seconds * 1000));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return seconds - (get("hour") * HOUR + get("minute") * 60 + get("second"));
}

export type LogRange = { start_timestamp: number; end_timestamp: number };

/** Today from midnight to an hour from now: what /log shows until the user picks other times. */
export function defaultLogRange(now: number, timeZone?: string): LogRange {
  return { start_timestamp: startOfDay(now, timeZone), end_timestamp: now + HOUR };
}

/** The filters of /log as the URL gives them (empty or 0 = not filtered). */
export type LogFilters = LogRange & {
  type: number;
  token_name: string;
  model_name: string;
  /** Admin only. */
  username: string;
  /** Admin only: the channel id. */
  channel: number;
};

/**
 * The page's filters from its URL: each value as GET /api/log reads it, and the default range for
 * a time the URL does not name (an explicit 0 means "no bound"). `admin` keeps username and channel.
 */
export function logFiltersOf(get: (key: keyof LogFilters) => string, admin: boolean, now: number, timeZone?: string): LogFilters {
  const whole = (key: keyof LogFilters, fallback: number) => {
    const raw = get(key);
    if (raw === "") return fallback;
    const value = Number(raw);
    return Number.isInteger(value) && value >= 0 && value <= INT_COLUMN_MAX ? value : fallback;
  };
  const range = defaultLogRange(now, timeZone);
  return {
    type: whole("type", 0),
    token_name: get("token_name"),
    model_name: get("model_name"),
    start_timestamp: whole("start_timestamp", range.start_timestamp),
    end_timestamp: whole("end_timestamp", range.end_timestamp),
    username: admin ? get("username") : "",
    channel: admin ? whole("channel", 0) : 0,
  };
}
