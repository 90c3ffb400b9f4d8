"use client";
// The dialogs of the two-factor card: setting up (scan the QR code, prove the app with a code, keep
// the backup codes), and asking for a code before switching off or regenerating the codes.
import { Alert, Button, Code, Group, Image, Modal, PinInput, SimpleGrid, Stack, Stepper, Text, TextInput } from "@mantine/core";
import { useMediaQuery } from "@mantine/hooks";
import { type FormEvent, useState } from "react";
import { SecondFactorInput } from "@/components/auth/second-factor-input";
import { CopyButton, copyText } from "@/components/data/copy";
import { downloadText } from "@/components/data/download";
import type { TwoFactorSetup } from "@/lib/accounts/two-factor";
import { api, type ApiResult } from "@/lib/client/api";
import { showError, showSuccess } from "@/lib/client/notify";

export const TWO_FACTOR_TEXT = {
  scan: "使用身份验证器应用（如 Google Authenticator、Microsoft Authenticator、1Password）扫描二维码，或手动输入下面的密钥。",
  enterCode: "输入身份验证器应用中显示的 6 位验证码，完成启用。",
  keepCodes: "请妥善保存以下备用码。手机丢失时，可用备用码代替验证码登录，每个备用码只能使用一次。关闭后将无法再次查看。",
  needCode: "请输入 6 位验证码",
  codesCopied: "备用码已复制到剪贴板！",
} as const;

/** The backup codes, shown once, with copy-all and download. */
export function BackupCodes({ codes }: { codes: string[] }) {
  const text = codes.join("\n");
  return (
    <Stack gap="sm">
      <Alert color="yellow" variant="light">
        {TWO_FACTOR_TEXT.keepCodes}
      </Alert>
      <SimpleGrid cols={2} spacing="xs" role="group" aria-label="备用码">
        {codes.map((code) => (
          <Code key={code} ta="center" fz="sm" py={6}>
            {code}
          </Code>
        ))}
      </SimpleGrid>
      <Group gap="xs" grow>
        <Button variant="light" onClick={() => copyText(text, TWO_FACTOR_TEXT.codesCopied)}>
          复制全部
        </Button>
        <Button variant="light" onClick={() => downloadText("backup-codes.txt", `${text}\n`)}>
          下载
        </Button>
      </Group>
    </Stack>
  );
}

const STEP_TITLES = ["扫描二维码", "输入验证码", "保存备用码"];

/** Setup: the QR code and key, then a code to enable, then the backup codes. */
export function SetupDialog({ setup, onClose, onEnabled }: { setup: TwoFactorSetup | null; onClose: () => void; onEnabled: () => void }) {
  const [active, setActive] = useState(0);
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  // On a phone the three labels do not fit on one line: the steps show their numbers, and the
  // dialog's title names the step.
  const narrow = useMediaQuery("(max-width: 36em)");
  const label = (text: string) => (narrow ? undefined : text);

  const close = () => {
    setActive(0);
    setCode("");
    onClose();
  };

  const enable = async (typed = code) => {
    if (busy) return;
    if (!/^\d{6}$/.test(typed)) return showError(TWO_FACTOR_TEXT.needCode);
    setBusy(true);
    const res = await api("POST", "/api/user/2fa/enable", { code: typed });
    setBusy(false);
    if (!res.success) return setCode("");
    showSuccess(res.message || "两步验证启用成功");
    setActive(2);
    onEnabled();
  };

  return (
    <Modal
      opened={setup !== null}
      onClose={close}
      title={narrow ? `启用两步验证 · ${STEP_TITLES[active]}` : "启用两步验证"}
      centered
      size="lg"
      closeOnClickOutside={false}
    >
      {setup && (
        <Stepper active={active} size="sm" allowNextStepsSelect={false} onStepClick={(step) => active < 2 && setActive(step)}>
          <Stepper.Step label={label("扫描二维码")} aria-label="扫描二维码">
            <Stack gap="sm" align="center" mt="sm">
              <Text size="sm" c="dimmed">
                {TWO_FACTOR_TEXT.scan}
              </Text>
              <Image src={setup.qr_code_image} alt="两步验证二维码" w={200} h={200} radius="sm" bg="white" p={4} />
              <TextInput
                label="密钥"
                value={setup.secret}
                readOnly
                w="100%"
                onFocus={(e) => e.currentTarget.select()}
                rightSection={<CopyButton value={setup.secret} label="复制密钥" />}
                styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
              />
              <Button onClick={() => setActive(1)} fullWidth>
                下一步
              </Button>
            </Stack>
          </Stepper.Step>
          <Stepper.Step label={label("输入验证码")} aria-label="输入验证码">
            <form
              noValidate
              onSubmit={(e: FormEvent) => {
                e.preventDefault();
                void enable();
              }}
            >
              <Stack gap="md" align="center" mt="sm">
                <Text size="sm" c="dimmed">
                  {TWO_FACTOR_TEXT.enterCode}
                </Text>
                <PinInput
                  length={6}
                  type="number"
                  inputMode="numeric"
                  oneTimeCode
                  autoFocus
                  ariaLabel="验证码"
                  value={code}
                  onChange={setCode}
                  onComplete={(value) => void enable(value)}
                />
                <Group w="100%" grow>
                  <Button variant="default" onClick={() => setActive(0)}>
                    上一步
                  </Button>
                  <Button type="submit" loading={busy}>
                    启用
                  </Button>
                </Group>
              </Stack>
            </form>
          </Stepper.Step>
          <Stepper.Step label={label("保存备用码")} aria-label="保存备用码">
            <Stack gap="sm" mt="sm">
              <BackupCodes codes={setup.backup_codes} />
              <Button onClick={close}>我已保存</Button>
            </Stack>
          </Stepper.Step>
        </Stepper>
      )}
    </Modal>
  );
}

/** Asks for a TOTP or backup code before an action; answers with what the action returned. */
export function CodeDialog<T>({
  opened,
  title,
  confirmLabel,
  danger = false,
  action,
  onClose,
  onDone,
}: {
  opened: boolean;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  action: (code: string) => Promise<ApiResult<T>>;
  onClose: () => void;
  onDone: (data: T) => void;
}) {
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);

  const close = () => {
    setCode("");
    onClose();
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const typed = code.trim();
    if (!typed) return showError("请输入验证码或备用码");
    setBusy(true);
    const res = await action(typed);
    setBusy(false);
    setCode("");
    if (!res.success) return;
    if (res.message) showSuccess(res.message);
    onDone(res.data);
  };

  return (
    <Modal opened={opened} onClose={close} title={title} centered>
      <form noValidate onSubmit={submit}>
        <Stack gap="sm">
          <SecondFactorInput value={code} onChange={setCode} />
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={close}>
              取消
            </Button>
            <Button type="submit" color={danger ? "red" : undefined} loading={busy}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
