"use client";
// What the log list does: the filter form being edited (its values go to the URL on 查询, 重置
// removes them) and which rows have their details open.
import { useState } from "react";
import type { ListUrl } from "@/components/data/use-list-url";
import type { LogFilters } from "@/lib/logs/range";

export function useLogActions(list: ListUrl, admin: boolean, filters: LogFilters) {
  const [form, setForm] = useState(filters);
  const [open, setOpen] = useState<number[]>([]);
  const set = <K extends keyof LogFilters>(key: K, value: LogFilters[K]) => setForm((f) => ({ ...f, [key]: value }));

  const search = () => {
    setOpen([]);
    list.update({
      type: form.type || null,
      token_name: form.token_name,
      model_name: form.model_name,
      // 0 is written out: an emptied time means "no bound", an absent one the default range.
      start_timestamp: String(form.start_timestamp),
      end_timestamp: String(form.end_timestamp),
      ...(admin ? { username: form.username, channel: form.channel || null } : {}),
    });
  };

  const reset = () => {
    setOpen([]);
    list.update({
      type: null,
      token_name: null,
      model_name: null,
      start_timestamp: null,
      end_timestamp: null,
      username: null,
      channel: null,
    });
  };

  const isOpen = (id: number) => open.includes(id);
  const toggle = (id: number) => setOpen((ids) => (ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id]));

  return { form, set, search, reset, isOpen, toggle };
}

export type LogActions = ReturnType<typeof useLogActions>;
