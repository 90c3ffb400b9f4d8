import { headers } from "next/headers";
import { TelegramCallback } from "@/components/auth/telegram-callback";
import { cameFromOurPages } from "@/lib/auth/navigation";

// The Telegram widget's redirect from personal settings to bind.
export default async function TelegramBindPage() {
  return <TelegramCallback mode="bind" fromOurPages={cameFromOurPages(await headers(), false)} />;
}
