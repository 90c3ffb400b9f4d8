import { OptionPage } from "@/components/content/option-page";
import { NoticeBanner } from "@/components/home/notice-banner";
import { Welcome } from "@/components/home/welcome";

export default function HomePage() {
  return (
    <>
      <NoticeBanner />
      <OptionPage path="/api/home_page_content" title="首页" failure="加载首页内容失败..." empty={<Welcome />} />
    </>
  );
}
