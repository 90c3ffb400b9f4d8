"use client";
// Where the Telegram widget sends the browser (/oauth/telegram to sign in, /oauth/telegram/bind to
// bind), with the account's signed fields in the query: they go on, untouched, to the API. Signed
// in, the user is stored and /token opens (or the login page's code step); bound, personal
// settings open again. A failure says why (api() shows it) and returns to where the widget was.
// The page acts only on a navigation that started on our own pages (`fromOurPages`, checked by the
// server): a link elsewhere carrying someone's fields must not sign the visitor in or bind.
import { Alert, Anchor, Center, Loader, Stack, Text } from "@mantine/core";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { AuthCard } from "@/components/auth/auth-card";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { finishSignIn, type SignInAnswer } from "@/lib/client/third-party-sign-in";

export function TelegramCallback({ mode, fromOurPages }: { mode: "login" | "bind"; fromOurPages: boolean }) {
  const router = useRouter();
  const started = useRef(false);

  useEffect(() => {
    // Once: the fields are good for one use.
    if (started.current || !fromOurPages) return;
    started.current = true;
    const fields = window.location.search;
    void (async () => {
      if (mode === "login") {
        const res = await api<SignInAnswer>("GET", `/api/oauth/telegram/login${fields}`, undefined, { redirectOn401: false });
        router.replace(res.success ? finishSignIn(res.data) : "/login");
        return;
      }
      const res = await api("GET", `/api/oauth/telegram/bind${fields}`);
      if (res.success) showSuccess(res.message);
      router.replace("/setting");
    })();
  }, [mode, fromOurPages, router]);

  if (!fromOurPages) {
    const back = mode === "login" ? { href: "/login", label: "返回登录页" } : { href: "/setting", label: "返回个人设置" };
    return (
      <AuthCard title="Telegram 授权">
        <Alert color="yellow" mb="md">
          这条 Telegram 授权链接不是从本站页面打开的，已忽略。请在本站页面中重新使用 Telegram {mode === "login" ? "登录" : "绑定"}。
        </Alert>
        <Anchor component={Link} href={back.href}>
          {back.label}
        </Anchor>
      </AuthCard>
    );
  }
  return (
    <Center py={80}>
      <Stack align="center" gap="sm">
        <Loader />
        <Text c="dimmed">正在处理 Telegram 授权…</Text>
      </Stack>
    </Center>
  );
}
