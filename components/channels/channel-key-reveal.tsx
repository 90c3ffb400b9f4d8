"use client";
// Root reads a channel's stored key (POST /api/channel/{id}/key): the key is never sent with the
// channel, and the call asks root to verify first (step-up; the api client opens that dialog).
import { Button } from "@mantine/core";
import { useState } from "react";
import { showSecret } from "@/components/data/secret";
import { api } from "@/lib/client/api";

export function ChannelKeyReveal({ channelId }: { channelId: number }) {
  const [loading, setLoading] = useState(false);
  const reveal = async () => {
    setLoading(true);
    const res = await api<{ key: string }>("POST", `/api/channel/${channelId}/key`);
    setLoading(false);
    if (res.success) showSecret("渠道密钥", res.data.key);
  };
  return (
    <Button variant="subtle" size="compact-sm" loading={loading} onClick={reveal} w="fit-content">
      查看密钥
    </Button>
  );
}
