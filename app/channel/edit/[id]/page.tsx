import { notFound } from "next/navigation";
import { ChannelEditor } from "@/components/channels/channel-editor";
import { ApiError } from "@/lib/errors";
import { pageUser } from "@/lib/auth/page-user";
import { isRoot } from "@/lib/auth/roles";
import { CHANNEL_TYPE_CODES } from "@/lib/channels/catalog";
import { supportsModelList } from "@/lib/relay/probe/fetch-models";
import { getChannel, listChannelModels } from "@/lib/channels/query";
import { CHANNEL_MSG } from "@/lib/channels/schemas";
import { idParam } from "@/lib/db/paging";
import { listGroups } from "@/lib/options/groups";
import { getOptions } from "@/lib/options";
import { priceTableOf } from "@/lib/billing/pricing";
import { notRelayedTypes } from "@/lib/relay/providers";

// The channel editor for a stored channel, from the same lib/ function GET /api/channel/{id} calls.
// The key is never sent to the page: a blank key field leaves it unchanged.
export default async function ChannelEditPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await pageUser("admin");
  const { id } = await params;
  const channel = await (async () => {
    try {
      return await getChannel(idParam(id, CHANNEL_MSG.notFound));
    } catch (error) {
      if (error instanceof ApiError) notFound();
      throw error;
    }
  })();
  const [models, groups, options] = await Promise.all([listChannelModels(), listGroups(), getOptions()]);
  return (
    <ChannelEditor
      channel={channel}
      models={models.map((m) => m.id)}
      groups={groups}
      modelListTypes={CHANNEL_TYPE_CODES.filter(supportsModelList)}
      notRelayed={notRelayedTypes()}
      root={isRoot(user)}
      priceTable={priceTableOf(options)}
    />
  );
}
