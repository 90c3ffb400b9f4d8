"use client";
// The field for a code of the account's second factor where either kind is taken: a TOTP code
// from the app or a backup code (step-up, switching two-factor off, new backup codes).
import { TextInput } from "@mantine/core";

export function SecondFactorInput({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <TextInput
      label="验证码"
      description="身份验证器应用中的 6 位验证码，或一个备用码"
      placeholder="123456 或 XXXX-XXXX"
      autoComplete="one-time-code"
      spellCheck={false}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      data-autofocus
    />
  );
}
