"use client";
// Cloudflare Turnstile, rendered only when the server enables the check (status.turnstile_check).
// The token it yields goes into the `turnstile` query parameter of login, register and
// verification calls.
import { Box, Text } from "@mantine/core";
import Script from "next/script";
import { useEffect, useRef, useState } from "react";

type TurnstileApi = {
  render: (el: HTMLElement, options: { sitekey: string; callback: (token: string) => void; "expired-callback"?: () => void }) => string;
  remove: (id: string) => void;
};

declare global {
  interface Window {
    turnstile?: TurnstileApi;
  }
}

export function TurnstileWidget({ siteKey, onToken }: { siteKey: string; onToken: (token: string) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [ready, setReady] = useState(() => typeof window !== "undefined" && !!window.turnstile);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    if (!ready || !box.current || !window.turnstile) return;
    const id = window.turnstile.render(box.current, {
      sitekey: siteKey,
      callback: onToken,
      "expired-callback": () => onToken(""),
    });
    return () => window.turnstile?.remove(id);
  }, [ready, siteKey, onToken]);

  return (
    <Box mt="md" data-testid="turnstile">
      <Script
        src="https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit"
        strategy="afterInteractive"
        onReady={() => setReady(true)}
        onError={() => setFailed(true)}
      />
      <div ref={box} style={{ display: "flex", justifyContent: "center", minHeight: 65 }} />
      {failed && (
        <Text size="sm" c="red" ta="center">
          无法加载 Turnstile 人机验证，请检查网络后刷新页面
        </Text>
      )}
    </Box>
  );
}
