"use client";
// The wallet page (spec §2 Wallet page): balance, redeem a code, the get-code link and online
// top-up. The balance comes from the server component; after a redemption it re-renders.
import { Button, Card, Group, SimpleGrid, Stack, Text, TextInput, Title } from "@mantine/core";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { QuotaText, useQuotaDisplay } from "@/components/data/display";
import { OnlineTopUp } from "@/components/wallet/online-top-up";
import { PaymentBanner } from "@/components/wallet/payment-banner";
import { api } from "@/lib/client/api";
import { showError, showSuccess } from "@/lib/client/notify";
import type { PaymentReturn } from "@/lib/payments/return";
import { readRedeemCode, WALLET_MSG } from "@/lib/payments/wallet-form";
import { formatQuota } from "@/lib/ui/format";

type Props = {
  balance: { quota: number; used_quota: number; request_count: number };
  topUpLink: string;
  /** EPay (zfb, wx) and Stripe Checkout are each on once configured. */
  online: { enabled: boolean; stripe: boolean; min: number };
  /** The order the user came back from a gateway with (the query's order number), if it is theirs. */
  payment?: PaymentReturn | null;
};

export function Wallet({ balance, topUpLink, online, payment }: Props) {
  return (
    <Stack gap="md">
      <Title order={3}>钱包</Title>
      {payment && <PaymentBanner payment={payment} />}
      <Card withBorder padding="lg" radius="md">
        <Group justify="space-between" align="flex-end" gap="lg" wrap="wrap">
          <div>
            <Text size="sm" c="dimmed">
              当前余额
            </Text>
            <Text fz={32} fw={700} lh={1.2} data-testid="wallet-balance">
              <QuotaText quota={balance.quota} />
            </Text>
          </div>
          <Group gap="xl">
            <div>
              <Text size="sm" c="dimmed">
                历史消耗
              </Text>
              <Text fw={600}>
                <QuotaText quota={balance.used_quota} />
              </Text>
            </div>
            <div>
              <Text size="sm" c="dimmed">
                请求次数
              </Text>
              <Text fw={600}>{balance.request_count}</Text>
            </div>
          </Group>
        </Group>
      </Card>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <RedeemCard topUpLink={topUpLink} />
        <OnlineTopUp epay={online.enabled} stripe={online.stripe} min={online.min} />
      </SimpleGrid>
    </Stack>
  );
}

/** Redeem a code (POST /api/user/topup) and the link to where codes are sold (TopUpLink). */
function RedeemCard({ topUpLink }: { topUpLink: string }) {
  const router = useRouter();
  const display = useQuotaDisplay();
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [, startTransition] = useTransition();

  const redeem = async (event: React.FormEvent) => {
    event.preventDefault();
    const read = readRedeemCode(code);
    if (!read.ok) {
      showError(read.message);
      return;
    }
    setBusy(true);
    const res = await api<number>("POST", "/api/user/topup", { key: read.key }, { quiet: true });
    setBusy(false);
    if (!res.success) {
      // 401: api() is already on its way to the login page. No answer at all is spec §8's
      // "request failed" (an aborted request says nothing); otherwise the server's own text.
      if (res.httpStatus === 401) return;
      if (res.httpStatus === 0) {
        if (res.message) showError(WALLET_MSG.requestFailed);
      } else showError(res.message);
      return;
    }
    showSuccess(WALLET_MSG.redeemed(formatQuota(res.data, display)));
    setCode("");
    startTransition(() => router.refresh());
  };

  const openLink = () => {
    if (!topUpLink) {
      showError(WALLET_MSG.noTopUpLink);
      return;
    }
    window.open(topUpLink, "_blank", "noopener,noreferrer");
  };

  return (
    <Card withBorder padding="lg" radius="md">
      <Stack gap="sm">
        <Title order={4}>兑换码充值</Title>
        <form onSubmit={redeem}>
          <Stack gap="sm">
            <TextInput label="兑换码" placeholder="请输入兑换码" value={code} onChange={(e) => setCode(e.currentTarget.value)} />
            <Group gap="xs">
              <Button type="submit" loading={busy}>
                兑换
              </Button>
              <Button variant="default" onClick={openLink}>
                获取兑换码
              </Button>
            </Group>
          </Stack>
        </form>
      </Stack>
    </Card>
  );
}
