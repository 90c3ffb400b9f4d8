import { headers } from "next/headers";
import { TelegramCallback } from "@/components/auth/telegram-callback";
import { cameFromOurPages } from "@/lib/auth/navigation";

// The Telegram widget's redirect to sign in. A browser too old to say where the navigation started
// is trusted here (at worst a sign-in to someone else's account); never for binding.
export default async function TelegramLoginPage() {
  return <TelegramCallback mode="login" fromOurPages={cameFromOurPages(await headers(), true)} />;
}
