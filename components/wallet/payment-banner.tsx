"use client";
// The wallet's banner after a gateway sent the user back (lib/payments/return.ts): the order's
// state as our database has it. While the notice has not arrived yet, the page asks the server
// again every few seconds for a minute (and on the button), so the balance updates by itself.
import { Alert, Button, Group, Text } from "@mantine/core";
import { useRouter } from "next/navigation";
import { useEffect, useState, useTransition } from "react";
import { useQuotaDisplay } from "@/components/data/display";
import { Icon } from "@/components/icons";
import type { PaymentReturn } from "@/lib/payments/return";
import { moneyText, WALLET_MSG } from "@/lib/payments/wallet-form";
import { formatQuota } from "@/lib/ui/format";

const RECHECK_MS = 3000;
const RECHECKS = 20;

export function PaymentBanner({ payment }: { payment: PaymentReturn }) {
  const router = useRouter();
  const display = useQuotaDisplay();
  const [checking, startTransition] = useTransition();
  const [rechecks, setRechecks] = useState(0);
  const pending = payment.status === "pending";

  useEffect(() => {
    if (!pending || rechecks >= RECHECKS) return;
    const timer = setTimeout(() => {
      setRechecks((n) => n + 1);
      startTransition(() => router.refresh());
    }, RECHECK_MS);
    return () => clearTimeout(timer);
  }, [pending, rechecks, router]);

  if (payment.status === "success") {
    return (
      <Alert color="teal" variant="light" title={WALLET_MSG.paid} icon={<Icon name="check" size={18} />} data-testid="payment-result">
        {WALLET_MSG.paidDetail(formatQuota(payment.quota, display), payment.trade_no)}
      </Alert>
    );
  }
  if (pending) {
    return (
      <Alert
        color="yellow"
        variant="light"
        title={WALLET_MSG.payPending}
        icon={<Icon name="info" size={18} />}
        data-testid="payment-result"
      >
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Text size="sm">{WALLET_MSG.payPendingDetail(moneyText(payment.money, payment.currency), payment.trade_no)}</Text>
          <Button
            size="xs"
            variant="default"
            leftSection={<Icon name="refresh" size={14} />}
            loading={checking}
            onClick={() => startTransition(() => router.refresh())}
          >
            刷新
          </Button>
        </Group>
      </Alert>
    );
  }
  return (
    <Alert color="gray" variant="light" title={WALLET_MSG.payExpired} icon={<Icon name="info" size={18} />} data-testid="payment-result">
      {WALLET_MSG.payExpiredDetail(payment.trade_no)}
    </Alert>
  );
}
