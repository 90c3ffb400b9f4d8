"use client";
// What the 登录会话 card does: reads the caller's sessions (GET /api/user/self/sessions), ends one
// (DELETE …/{id}; ending its own signs this browser out) or all the others (POST …/revoke_others),
// each after a confirm, then reads the list again.
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import { confirmAction } from "@/components/data/confirm";
import type { OwnSession } from "@/lib/accounts/sessions";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { clearUser } from "@/lib/client/storage";

export type SessionsState = { state: "loading" } | { state: "error"; message: string } | { state: "ready"; sessions: OwnSession[] };

export const SESSIONS_MSG = {
  ended: "已退出该会话",
  endedOthers: (count: number) => (count > 0 ? `已退出其他 ${count} 个会话` : "没有其他会话"),
  signedOut: "已退出当前会话，请重新登录",
} as const;

export function useSessions() {
  const router = useRouter();
  const [list, setList] = useState<SessionsState>({ state: "loading" });
  const [busy, setBusy] = useState<string | null>(null);

  const load = useCallback(async (signal?: AbortSignal) => {
    const res = await api<OwnSession[]>("GET", "/api/user/self/sessions", undefined, { quiet: true, signal });
    if (signal?.aborted) return;
    setList(res.success ? { state: "ready", sessions: res.data } : { state: "error", message: res.message || "加载会话失败" });
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const end = async (session: OwnSession) => {
    const confirmed = await confirmAction({
      title: session.current ? "退出当前会话" : "退出该会话",
      message: session.current
        ? "退出后需要重新登录。确定退出当前会话吗？"
        : `确定退出 ${session.device}（${session.ip}）上的会话吗？该设备需要重新登录。`,
      confirmLabel: "退出",
      danger: true,
    });
    if (!confirmed) return;
    setBusy(session.id);
    const res = await api<{ current: boolean }>("DELETE", `/api/user/self/sessions/${encodeURIComponent(session.id)}`);
    setBusy(null);
    if (!res.success) return void load();
    if (res.data.current) {
      clearUser();
      showSuccess(SESSIONS_MSG.signedOut);
      router.push("/login");
      return;
    }
    showSuccess(SESSIONS_MSG.ended);
    await load();
  };

  const endOthers = async () => {
    const confirmed = await confirmAction({
      title: "退出其他所有会话",
      message: "除当前会话外，其他设备上的登录都将失效，需要重新登录。确定继续吗？",
      confirmLabel: "全部退出",
      danger: true,
    });
    if (!confirmed) return;
    setBusy("others");
    const res = await api<{ count: number }>("POST", "/api/user/self/sessions/revoke_others");
    setBusy(null);
    if (res.success) showSuccess(SESSIONS_MSG.endedOthers(res.data.count));
    await load();
  };

  return { list, busy, reload: () => load(), end, endOthers };
}
