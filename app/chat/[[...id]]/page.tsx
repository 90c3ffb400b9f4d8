import { notFound } from "next/navigation";
import { ChatFrame } from "@/components/chat/chat-frame";
import { pageUser } from "@/lib/auth/page-user";
import { getOptions } from "@/lib/options";
import { firstEnabledTokenKey } from "@/lib/tokens/manage";
import { chatFrameTarget } from "@/lib/ui/chat-link";

// /chat/{id?} (spec §2 Chat frame): the id-th configured chat link, filled in with the user's
// first enabled token, in a frame; or the spec §8 message for what is missing.
export default async function ChatPage({ params }: { params: Promise<{ id?: string[] }> }) {
  const user = await pageUser();
  const { id } = await params;
  if (id && id.length > 1) notFound();
  const options = await getOptions();
  const key = await firstEnabledTokenKey({ id: user.id, group: user.group });
  return <ChatFrame target={chatFrameTarget(options.Chats, id?.[0], key, options.ServerAddress)} />;
}
