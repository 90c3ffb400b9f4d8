"use client";
// Client-side roots: Mantine (the OS's light or dark until the user picks one, which local storage
// remembers; colours readable in both, components/theme.ts), notifications,
// modals, how quota and times read, the session hint decoded from the cookie by the root layout,
// and the step-up dialog any refused call may open.
import { localStorageColorSchemeManager, MantineProvider } from "@mantine/core";
import { ModalsProvider } from "@mantine/modals";
import { Notifications } from "@mantine/notifications";
import type { ReactNode } from "react";
import { z } from "zod";
import { StepUpHost } from "@/components/auth/step-up";
import { DisplayProvider, type DisplaySettings } from "@/components/data/display";
import { cssVariablesResolver, theme } from "@/components/theme";
import { SessionHintContext, type SessionHint } from "@/lib/client/hooks";
import { COLOR_SCHEME_KEY, DEFAULT_COLOR_SCHEME } from "@/lib/ui/color-scheme";

// zod probes for eval (`new Function`) before its first object parse; under the console's
// Content-Security-Policy that probe is refused and reported. The forms use its eval-free path.
z.config({ jitless: true });

// At most three toasts at once, so on a phone they never climb to a drawer's title; app/globals.css
// says where they go (issue 20.22).
const TOAST_LIMIT = 3;

const colorSchemeManager = localStorageColorSchemeManager({ key: COLOR_SCHEME_KEY });

export function Providers({ session, display, children }: { session: SessionHint; display: DisplaySettings; children: ReactNode }) {
  return (
    <MantineProvider
      theme={theme}
      cssVariablesResolver={cssVariablesResolver}
      colorSchemeManager={colorSchemeManager}
      defaultColorScheme={DEFAULT_COLOR_SCHEME}
    >
      <Notifications position="top-center" zIndex={1000} limit={TOAST_LIMIT} />
      <DisplayProvider value={display}>
        <SessionHintContext.Provider value={session}>
          <ModalsProvider labels={{ confirm: "确定", cancel: "取消" }}>
            {children}
            <StepUpHost />
          </ModalsProvider>
        </SessionHintContext.Provider>
      </DisplayProvider>
    </MantineProvider>
  );
}
