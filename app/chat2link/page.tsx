import { redirect } from "next/navigation";
import { ChatFrame } from "@/components/chat/chat-frame";
import { pageUser } from "@/lib/auth/page-user";
import { getOptions } from "@/lib/options";
import { firstEnabledTokenKey } from "@/lib/tokens/manage";
import { chat2LinkTarget } from "@/lib/ui/chat-link";

// /chat2link (spec §2): straight to the configured ChatLink with the user's first enabled token;
// the chat frame's messages when that cannot be done.
export default async function Chat2LinkPage() {
  const user = await pageUser();
  const options = await getOptions();
  const key = await firstEnabledTokenKey({ id: user.id, group: user.group });
  const target = chat2LinkTarget(options.ChatLink, key, options.ServerAddress);
  if (target.kind === "frame" || target.kind === "app") redirect(target.url);
  return <ChatFrame target={target} />;
}
