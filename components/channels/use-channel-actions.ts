"use client";
// What the channel list does: test a channel (with a model of its choosing), update its balance,
// enable/disable and delete it; the list-wide deletes (all disabled, the selected ones) and the
// database fix; and the ID-sort toggle, kept in local storage (spec §3).
import { useEffect, useState } from "react";
import type { ListUrl } from "@/components/data/use-list-url";
import { useRowAction } from "@/components/data/use-row-action";
import { CHANNEL_STATUS } from "@/lib/channels/fields";
import { CHANNEL_FORM_MSG } from "@/lib/channels/form";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import type { ChannelView } from "@/lib/channels/view";
import { api } from "@/lib/client/api";
import { showError, showSuccess } from "@/lib/client/notify";
import { readIdSort, writeIdSort } from "@/lib/client/storage";

const IRREVERSIBLE = { message: "此修改将不可逆", confirmLabel: "删除", danger: true };

export function useChannelActions(list: ListUrl, initialIdSort: boolean) {
  const [idSort, setIdSort] = useState(initialIdSort);
  const [batchMode, setBatchMode] = useState(false);
  const [selected, setSelected] = useState<number[]>([]);
  const [testing, setTesting] = useState<number | null>(null);

  // Local storage is where the toggle lives (spec §3); the cookie only lets the server sort the same way.
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, on mount
  useEffect(() => {
    const stored = readIdSort();
    if (stored !== initialIdSort) {
      writeIdSort(stored);
      setIdSort(stored);
      list.refresh();
    }
  }, []);

  const toggleIdSort = (on: boolean) => {
    setIdSort(on);
    writeIdSort(on);
    list.refresh();
  };

  const toggleBatch = (on: boolean) => {
    setBatchMode(on);
    setSelected([]);
  };

  const test = async (ch: ChannelView, testModel?: string) => {
    setTesting(ch.id);
    const q = testModel ? `?model=${encodeURIComponent(testModel)}` : "";
    // Quiet: a failure is reported here with the channel's name, not as a bare upstream message.
    const res = await api("GET", `/api/channel/test/${ch.id}${q}`, undefined, { quiet: true }).finally(() => setTesting(null));
    if (res.success) showSuccess(CHANNEL_FORM_MSG.tested(ch.name, Number(res.body.time) || 0));
    else if (res.httpStatus !== 401) showError(CHANNEL_FORM_MSG.testFailed(ch.name, res.message));
    list.refresh();
  };

  const balance = useRowAction(
    (ch: ChannelView) => CHANNEL_FORM_MSG.balanceUpdated(ch.name),
    null,
    (ch: ChannelView) => api("GET", `/api/channel/update_balance/${ch.id}/`),
    list.refresh,
  );

  const status = useRowAction(
    CHANNEL_FORM_MSG.done,
    null,
    (ch: ChannelView) => {
      const next = ch.status === CHANNEL_STATUS.enabled ? CHANNEL_STATUS.manuallyDisabled : CHANNEL_STATUS.enabled;
      return api("PUT", "/api/channel/", { id: ch.id, status: next });
    },
    list.refresh,
  );

  const remove = useRowAction(
    CHANNEL_FORM_MSG.deleted,
    (ch: ChannelView) => ({ title: `确定是否要删除渠道「${ch.name}」？`, ...IRREVERSIBLE }),
    (ch: ChannelView) => api("DELETE", `/api/channel/${ch.id}/`),
    (ch) => {
      setSelected((ids) => ids.filter((id) => id !== ch.id));
      list.refresh();
    },
  );

  const deleteDisabled = useRowAction<void, number>(
    (_, n) => CHANNEL_FORM_MSG.deletedDisabled(n),
    { title: "确定是否要删除所有已禁用渠道？", ...IRREVERSIBLE },
    () => api<number>("DELETE", "/api/channel/disabled"),
    list.refresh,
  );

  const batch = useRowAction<void, number>(
    (_, n) => CHANNEL_FORM_MSG.deletedSelected(n),
    () => ({ title: `确定是否要删除所选的 ${selected.length} 个通道？`, ...IRREVERSIBLE }),
    () => api<number>("POST", "/api/channel/batch", { ids: selected }),
    () => {
      setSelected([]);
      list.refresh();
    },
  );
  const deleteSelected = () => (selected.length === 0 ? showError(CHANNEL_MSG.noneSelected) : batch.run());

  const fix = useRowAction<void, number>(
    (_, n) => CHANNEL_FORM_MSG.fixed(n),
    null,
    () => api<number>("POST", "/api/channel/fix"),
    list.refresh,
  );

  return {
    idSort,
    toggleIdSort,
    batchMode,
    toggleBatch,
    selected,
    setSelected,
    test,
    testing: (ch: ChannelView) => testing === ch.id,
    balance,
    status,
    remove,
    deleteDisabled,
    deleteSelected,
    batch,
    fix,
  };
}

export type ChannelActions = ReturnType<typeof useChannelActions>;
