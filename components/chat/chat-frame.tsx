"use client";
// The chat frame (spec §2): the filled-in chat link in a sandboxed frame, a button for a client
// app's own link, or the spec §8 message; without an enabled token, back to /token after 1.5 s.
import { Alert, Button, Stack, Text } from "@mantine/core";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { CHAT_IFRAME_SANDBOX, CHAT_MSG, type ChatTarget, NO_TOKEN_REDIRECT_MS } from "@/lib/ui/chat-link";

export function ChatFrame({ target }: { target: ChatTarget }) {
  const router = useRouter();
  const noToken = target.kind === "no-token";
  useEffect(() => {
    if (!noToken) return;
    const timer = window.setTimeout(() => router.replace("/token"), NO_TOKEN_REDIRECT_MS);
    return () => window.clearTimeout(timer);
  }, [noToken, router]);

  switch (target.kind) {
    case "frame":
      return (
        <iframe
          src={target.url}
          title={target.name}
          sandbox={CHAT_IFRAME_SANDBOX}
          allow="camera; microphone; clipboard-write"
          referrerPolicy="no-referrer"
          data-testid="chat-frame"
          style={{ width: "100%", height: "calc(100dvh - 56px - 100px)", minHeight: 420, border: "none", display: "block" }}
        />
      );
    case "app":
      return (
        <Stack gap="sm" maw={560}>
          <Text>「{target.name}」是一个本地应用，浏览器无法在页面内打开它。</Text>
          <Button component="a" href={target.url} w="fit-content">
            在「{target.name}」中打开
          </Button>
        </Stack>
      );
    case "no-token":
      return (
        <Alert color="red" variant="light" maw={640}>
          {CHAT_MSG.noToken}
        </Alert>
      );
    case "error":
      return (
        <Alert color="red" variant="light" maw={640}>
          {target.message}
        </Alert>
      );
  }
}
