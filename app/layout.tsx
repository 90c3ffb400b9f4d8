import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";
import "@mantine/charts/styles.css";

import "./globals.css";
import { ColorSchemeScript, mantineHtmlProps } from "@mantine/core";
import type { Metadata, Viewport } from "next";
import { cookies, headers } from "next/headers";
import type { ReactNode } from "react";
import { ConsoleShell } from "@/components/shell/console-shell";
import { Providers } from "@/components/providers";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { checkSession } from "@/lib/auth/session-check";
import type { SessionHint } from "@/lib/client/hooks";
import { getOptions } from "@/lib/options";
import { COLOR_SCHEME_KEY, DEFAULT_COLOR_SCHEME } from "@/lib/ui/color-scheme";
import { NONCE_HEADER } from "@/lib/ui/csp";
import { TIME_ZONE_COOKIE } from "@/lib/ui/time-zone";
import { validTimeZone } from "@/lib/ui/format";
import type { DisplaySettings } from "@/components/data/display";

/** The tab title is the configured system name (SystemName, the 其他设置 tab) on every page, from the first byte. */
export async function generateMetadata(): Promise<Metadata> {
  const options = await getOptions();
  return {
    title: options.SystemName || "Qiao",
    description: "Qiao（桥）：自托管的 AI 模型接口网关与管理控制台",
  };
}

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

/** Who the session cookie says is logged in, so the first render already shows the right frame. */
async function sessionHint(): Promise<SessionHint> {
  const check = await checkSession((await cookies()).get(SESSION_COOKIE)?.value);
  return check.state === "active" ? { id: check.user.id, username: check.user.username, role: check.user.role } : null;
}

/** How quota and times read on every page: the options as they are now, the viewer's zone. */
async function displaySettings(): Promise<DisplaySettings> {
  const options = await getOptions();
  return {
    quotaPerUnit: options.QuotaPerUnit,
    inCurrency: options.DisplayInCurrencyEnabled,
    timeZone: validTimeZone((await cookies()).get(TIME_ZONE_COOKIE)?.value),
  };
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  const options = await getOptions();
  return (
    <html lang="zh-CN" {...mantineHtmlProps}>
      <head>
        {/* An inline script: it runs under the page's Content-Security-Policy only with its nonce (proxy.ts).
            It sets the scheme (the remembered pick, else the OS's) before the first paint: no flash. */}
        <ColorSchemeScript
          defaultColorScheme={DEFAULT_COLOR_SCHEME}
          localStorageKey={COLOR_SCHEME_KEY}
          nonce={(await headers()).get(NONCE_HEADER) ?? undefined}
        />
      </head>
      <body>
        <Providers session={await sessionHint()} display={await displaySettings()}>
          <ConsoleShell
            registerOpen={options.RegisterEnabled}
            menuFlags={{
              chats: options.Chats,
              enable_data_export: options.DataExportEnabled,
              enable_drawing: options.DrawingEnabled,
              enable_task: options.TaskEnabled,
            }}
          >
            {children}
          </ConsoleShell>
        </Providers>
      </body>
    </html>
  );
}
