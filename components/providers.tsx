"use client";
// Client-side roots: Mantine (light and dark, choice remembered in local storage), notifications,
// and the session hint decoded from the cookie by the root layout.
import { createTheme, localStorageColorSchemeManager, MantineProvider } from "@mantine/core";
import { Notifications } from "@mantine/notifications";
import type { ReactNode } from "react";
import { z } from "zod";
import { SessionHintContext, type SessionHint } from "@/lib/client/hooks";
import { COLOR_SCHEME_KEY } from "@/lib/ui/color-scheme";

// zod probes for eval (`new Function`) before its first object parse; under the console's
// Content-Security-Policy that probe is refused and reported. The forms use its eval-free path.
z.config({ jitless: true });

const FONT_STACK = [
  "-apple-system",
  "BlinkMacSystemFont",
  '"Segoe UI"',
  '"PingFang SC"',
  '"Hiragino Sans GB"',
  '"Microsoft YaHei"',
  '"Noto Sans CJK SC"',
  '"Noto Sans SC"',
  '"Source Han Sans SC"',
  '"WenQuanYi Micro Hei"',
  "Roboto",
  '"Helvetica Neue"',
  "Arial",
  "sans-serif",
].join(", ");

const theme = createTheme({
  primaryColor: "blue",
  fontFamily: FONT_STACK,
  headings: { fontFamily: FONT_STACK },
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  defaultRadius: "md",
});

const colorSchemeManager = localStorageColorSchemeManager({ key: COLOR_SCHEME_KEY });

export function Providers({ session, children }: { session: SessionHint; children: ReactNode }) {
  return (
    <MantineProvider theme={theme} colorSchemeManager={colorSchemeManager} defaultColorScheme="light">
      <Notifications position="top-center" zIndex={1000} />
      <SessionHintContext.Provider value={session}>{children}</SessionHintContext.Provider>
    </MantineProvider>
  );
}
