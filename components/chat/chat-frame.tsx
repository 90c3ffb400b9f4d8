"use client";
// The chat frame: the chosen chat page in a frame filling the content area (an app's own link,
// such as opencat://, is opened instead), or why it cannot show (spec §8: without an enabled token
// the user is sent to /token after 1.5 s).
import { Alert } from "@mantine/core";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { showError } from "@/lib/client/notify";
import { CHAT_FRAME_MSG, type ChatTarget } from "@/lib/ui/chat-frame";

const REDIRECT_MS = 1500;

export function ChatFrame({ target }: { target: ChatTarget }) {
  const router = useRouter();
  const error = "error" in target ? target.error : null;
  const external = "url" in target && target.external ? target.url : null;

  useEffect(() => {
    if (external) window.location.assign(external);
  }, [external]);

  useEffect(() => {
    if (!error) return;
    showError(CHAT_FRAME_MSG[error]);
    if (error !== "noToken") return;
    const timer = setTimeout(() => router.push("/token"), REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [error, router]);

  if (external) {
    return (
      <Alert color="blue" variant="light" title="聊天">
        正在打开聊天应用…
      </Alert>
    );
  }
  if ("url" in target) {
    return (
      <iframe
        title="聊天"
        src={target.url}
        style={{ width: "100%", height: "calc(100dvh - var(--app-shell-header-height, 60px) - 2 * var(--mantine-spacing-md))", border: 0 }}
        allow="clipboard-read; clipboard-write; microphone"
        referrerPolicy="no-referrer"
      />
    );
  }
  return (
    <Alert color={error === "noToken" ? "orange" : "gray"} variant="light" title="聊天">
      {CHAT_FRAME_MSG[target.error]}
    </Alert>
  );
}
