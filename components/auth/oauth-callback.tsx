"use client";
// The console page a provider sends the browser back to (`/oauth/github`, `/oauth/linuxdo`,
// `/oauth/oidc`). It hands the whole query (code, state, and the provider's other parameters) to
// `GET /api/oauth/{provider}` and follows spec §4 Session and OAuth: message `bind` → /setting;
// signed in → the user is stored, 登录成功！, /token; a second factor to give → the login page's
// second step; a failure → its message, then /setting.
import { Loader, Stack, Text } from "@mantine/core";
import { useRouter } from "next/navigation";
import { useEffect, useRef } from "react";
import { AuthCard } from "@/components/auth/auth-card";
import { api } from "@/lib/client/api";
import { showError, showInfo, showSuccess } from "@/lib/client/notify";
import { announceOAuth, type OAuthProviderName } from "@/lib/client/oauth";
import { writeUser } from "@/lib/client/storage";
import type { StoredUser } from "@/lib/client/types";

const TITLES: Record<OAuthProviderName, string> = { github: "GitHub", linuxdo: "LinuxDO", oidc: "OIDC" };

type Answer = StoredUser | { require_2fa: true } | { action: "bind" };

export function OAuthCallback({ provider, query }: { provider: OAuthProviderName; query: string }) {
  const router = useRouter();
  // The state is single-use: the call must go out once, even when React runs the effect twice.
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    void (async () => {
      const res = await api<Answer>("GET", `/api/oauth/${provider}?${query}`, undefined, { quiet: true, redirectOn401: false });
      if (!res.success) {
        showError(res.message);
        router.replace("/setting");
        return;
      }
      if (res.message === "bind") {
        showSuccess("绑定成功！");
        announceOAuth({ kind: "bound", provider });
        router.replace("/setting");
        return;
      }
      if ("require_2fa" in res.data) {
        showInfo(res.message);
        router.replace("/login?step=2fa");
        return;
      }
      writeUser(res.data as StoredUser);
      showSuccess("登录成功！");
      announceOAuth({ kind: "signed_in", provider });
      router.replace("/token");
    })();
  }, [provider, query, router]);

  return (
    <AuthCard title={`${TITLES[provider]} 授权`}>
      <Stack align="center" gap="sm" py="md">
        <Loader size="md" aria-label="处理中" />
        <Text size="sm" c="dimmed">
          正在处理授权，请稍候…
        </Text>
      </Stack>
    </AuthCard>
  );
}
