package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eventspace.base.json.Json;
import org.eventspace.monitor.model.Coverage;
import org.eventspace.monitor.model.RankRecord;
import org.eventspace.monitor.model.RunModel;
import org.eventspace.monitor.model.SlowestRankRule;
import org.eventspace.monitor.model.Verdict;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The report page as a file a stranger opens: its policy runs its own scripts only, and its size is bounded. */
class RunReportPageTest {
    private static final Pattern SCRIPT = Pattern.compile("<script>(.*?)</script>", Pattern.DOTALL);

    /** An MPI run of {@code ranks} ranks, each with its record, rank 2 slow. */
    static JsonNode mpiRun(int ranks) {
        List<RankRecord> records = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            records.add(new RankRecord(r, 0, true, null, null, 301L, 0L, r == 2 ? 300.0 : 30_000.0, r == 2 ? 900.0 : -300.0,
                    r == 2 ? 250L : 17L, 300L, 0.0, 0.0, Map.of("MPI_Allreduce", new RankRecord.Calls(300, 1000))));
        }
        Verdict.SlowestRank none = SlowestRankRule.judge(List.of());
        return Json.mapper().valueToTree(new RunModel(RunModel.SCHEMA, RunModel.MPI, "es_imbalance", ranks, 1, "mpi", 0.5,
                true, List.of(), records, RunModel.operationsOf(records),
                new Verdict(none, null, Verdict.Load.of(2, ranks, 1), none.words()),
                new Coverage(1204, 1204, 0, 1.0, 0, 0, 0, 0, 0, List.of())));
    }

    @Test
    void thePolicyAllowsExactlyThePagesOwnScriptsByTheirHash() throws Exception {
        String page = RunReportPage.html(CraftedRuns.FILE_NAME, CraftedRuns.mpiRun(), "b.json", CraftedRuns.mpiRun(),
                CraftedRuns.network());
        Matcher meta = Pattern.compile("<meta http-equiv=\"Content-Security-Policy\" content=\"([^\"]*)\">").matcher(page);
        assertThat(meta.find()).isTrue();
        String policy = meta.group(1);
        assertThat(meta.start()).isLessThan(page.indexOf("<script"));
        assertThat(policy).startsWith("default-src 'none'; script-src 'sha256-").contains("base-uri 'none'");
        assertThat(policy.substring(0, policy.indexOf("; style-src"))).doesNotContain("unsafe");
        Matcher scripts = SCRIPT.matcher(page);
        int n = 0;
        while (scripts.find()) {
            n++;
            String hash = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(scripts.group(1).getBytes(StandardCharsets.UTF_8)));
            assertThat(policy).contains("'sha256-" + hash + "'");
        }
        assertThat(n).as("the frame's data and dashboard.js; the network drawing's own script is left out").isEqualTo(2);
        assertThat(page).contains("<meta name=\"referrer\" content=\"no-referrer\">").doesNotContain("CDATA")
                .contains("<div id=\"network\"><svg");
        // Nothing of the crafted strings is markup outside the script's JSON (where every '<' is \u003c).
        String outsideScripts = SCRIPT.matcher(page).replaceAll("");
        assertThat(outsideScripts).doesNotContain(CraftedRuns.IMG).doesNotContain("<script>alert");
    }

    @Test
    void theHostProcessesStartAndEndAreInTheVerdictPaneAsText() {
        ObjectNode run = (ObjectNode) CraftedRuns.mpiRun();
        String line = "start and end of 16 host processes: start 8.27 s, last host 15 " + CraftedRuns.IMG;
        run.putObject("launch").put("summary", line);
        String page = RunReportPage.html(CraftedRuns.FILE_NAME, run, null, null);
        assertThat(page).contains("<p id=\"verdict-launch\" class=\"muted\">" + RunReportPage.escape(line) + "</p>");
        assertThat(SCRIPT.matcher(page).replaceAll("")).doesNotContain(CraftedRuns.IMG);
        // A run of one JVM has no launch block: the paragraph stays empty.
        assertThat(RunReportPage.html(CraftedRuns.FILE_NAME, CraftedRuns.mpiRun(), null, null))
                .contains("<p id=\"verdict-launch\" class=\"muted\"></p>");
    }

    @Test
    void aReportClaimingFarMoreRanksThanItsBytesHoldIsRefusedNamingFileAndBound() {
        ObjectNode claim = (ObjectNode) mpiRun(4);
        claim.put("ranks", 100_000);
        assertThatThrownBy(() -> RunReportPage.checkSize("big.json", claim, 39_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("big.json: /ranks: claims 100,000 ranks in 39,000 bytes")
                .hasMessageContaining("at most 4,096 here");
        RunReportPage.checkSize("ok.json", claim, 100_000L * RunReportPage.MIN_BYTES_PER_RANK);
        claim.put("ranks", RunReportPage.RANKS_WITHOUT_SIZE_CHECK);
        RunReportPage.checkSize("small.json", claim, 100);
    }

    @Test
    void thePageDrawsTheFirstRanksAndCountsTheRest() throws Exception {
        int ranks = RunReportPage.MAX_RANK_ROWS + 76;
        String page = RunReportPage.html("many.json", mpiRun(ranks), null, null);
        String data = page.substring(page.indexOf("window.ES_STATIC = ") + "window.ES_STATIC = ".length());
        data = data.substring(0, data.indexOf(";</script>"));
        JsonNode frame = Json.mapper().readTree(data).path("frame");
        assertThat(frame.path("ranks").size()).isEqualTo(RunReportPage.MAX_RANK_ROWS);
        assertThat(frame.path("ranks_not_drawn").asInt()).isEqualTo(76);
        assertThat(frame.path("run").path("ranks").asInt()).isEqualTo(ranks);
    }

    /**
     * The page's script parses no markup of its own making: every element is built (text as text nodes), so no string
     * from a file can become markup whatever the code path (the browser test proves the paths it walks).
     */
    @Test
    void thePageScriptWritesNoMarkup() {
        String script = DashboardAssets.text("dashboard.js");
        for (String sink : new String[] {".innerHTML", ".outerHTML", "insertAdjacentHTML", "document.write", "createContextualFragment",
                "eval(", "new Function"}) {
            assertThat(script).as("dashboard.js uses %s", sink).doesNotContain(sink);
        }
    }
}
