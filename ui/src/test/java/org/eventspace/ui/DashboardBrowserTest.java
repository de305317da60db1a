package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The dashboard in a real browser: headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, which
 * {@code .ci/run} installs) loads the page a running demo serves and checks what a person would look for: a rank node per
 * rank, the heaviest path ending at the rank made slow, the histogram view growing while the job runs, and a click on a
 * gred lighting its paths and showing its table. Screenshots go to {@code ui/target/}; the README's picture of the
 * dashboard, {@code docs/img/dashboard.png}, is taken here too (1280 × 800, once the panes have data), so it shows the page
 * as the code draws it today. Skipped where Chromium is missing, except under CI ({@code CI=true}), where a missing
 * browser fails the test.
 */
@Timeout(120)
class DashboardBrowserTest {
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    private static final String CHROMIUM = "/usr/bin/chromium";
    /**
     * Selenium warns that it has no DevTools bindings for this Chromium's version; we use none. Held here: the logging
     * framework keeps loggers weakly, and a collected one forgets its level.
     */
    private static final java.util.logging.Logger SELENIUM = java.util.logging.Logger.getLogger("org.openqa.selenium");

    static {
        SELENIUM.setLevel(java.util.logging.Level.SEVERE);
    }

    /** What a test does with the page, once the browser has loaded it. */
    interface PageCheck {
        void check(ChromeDriver browser, JavascriptExecutor js, DemoJob demo) throws Exception;
    }

    /** Starts the demo's job with {@code settings} and its dashboard, opens the page in headless Chromium, runs {@code check}. */
    private static void withPage(DemoJob.Settings settings, PageCheck check) throws Exception {
        boolean present = new File(CHROMEDRIVER).canExecute() && new File(CHROMIUM).canExecute();
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("CI must run the browser test: install chromium and chromium-driver (.ci/run does)");
        }
        Assumptions.assumeTrue(present, "no " + CHROMIUM + " and " + CHROMEDRIVER + ": apt-get install chromium chromium-driver");
        Path profile = Files.createTempDirectory("es-chromium-");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort().withLogOutput(java.io.OutputStream.nullOutputStream()).build();
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM).addArguments("--headless", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--window-size=1400,1800",
                "--user-data-dir=" + profile);
        try (DemoJob demo = DemoJob.start(settings);
             DashboardServer server = DashboardServer.start(demo.source(), DashboardServer.LOOPBACK, 0, 250)) {
            ChromeDriver browser = new ChromeDriver(service, options);
            try {
                browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30)).scriptTimeout(Duration.ofSeconds(10));
                browser.get(server.url());
                check.check(browser, browser, demo);
            } finally {
                browser.quit();
                service.stop();
            }
        } finally {
            deleteQuietly(profile);
        }
    }

    private static void screenshot(ChromeDriver browser, String name) throws Exception {
        Path shot = Path.of("target", name);
        Files.createDirectories(shot.getParent());
        Files.copy(((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath(), shot,
                StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.size(shot)).isGreaterThan(10_000);
    }

    /**
     * Saves the page as the README shows it, {@code docs/img/dashboard.png} in the repository: the first screen a person
     * sees in a 1280 × 800 viewport, scroll bars hidden, taken once the heaviest path ends at the slow rank again (the
     * demo's rank is slow 3 s of every 4 s; after 20 s it is taken as it is). The window, and the page's scroll bars, are
     * then put back, so the checks after it see the page they expect. The repository's root is found from the working
     * directory Maven gives the test (the module, {@code ui}).
     */
    private static void readmeScreenshot(ChromeDriver browser, JavascriptExecutor js, int slowRank) throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !(Files.isDirectory(root.resolve("docs")) && Files.isRegularFile(root.resolve("mvnw")))) {
            root = root.getParent();
        }
        assertThat(root).as("the repository's root (a folder with docs/ and mvnw) above " + Path.of("").toAbsolutePath())
                .isNotNull();
        Dimension before = browser.manage().window().getSize();
        try {
            js.executeScript("document.documentElement.style.overflow = 'hidden';");
            browser.manage().window().setSize(new Dimension(1280, 800));
            // The window's size includes what a browser draws around the page: grow it by that much.
            List<?> inner = (List<?>) js.executeScript("return [window.innerWidth, window.innerHeight];");
            browser.manage().window().setSize(new Dimension(1280 + 1280 - ((Number) inner.get(0)).intValue(),
                    800 + 800 - ((Number) inner.get(1)).intValue()));
            long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() - end < 0 && !Boolean.TRUE.equals(js.executeScript(
                    "const n = document.querySelector(\"#tree g.node.heavy[data-kind='rank']\");"
                            + " return n != null && n.dataset.rank === '" + slowRank + "';"))) {
                Thread.sleep(100);
            }
            Thread.sleep(600); // the frame after it drawn at the new width too
            Path shot = root.resolve("docs/img/dashboard.png");
            Files.createDirectories(shot.getParent());
            Files.copy(((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath(), shot,
                    StandardCopyOption.REPLACE_EXISTING);
            assertThat(Files.size(shot)).isGreaterThan(10_000);
        } finally {
            js.executeScript("document.documentElement.style.overflow = '';");
            browser.manage().window().setSize(before);
        }
    }

    /**
     * The network pane (ibprof + BoxFish, §4.2): the demo's hosts on a fat tree, the traffic its transports counted on
     * every link; selecting the hottest link listed highlights it and its two ends, fades the links that touch neither end,
     * and shows the selection's bytes; the hottest link carries the most bytes of any half drawn.
     */
    @Test
    void theNetworkPaneHighlightsTheHottestLink() throws Exception {
        withPage(DemoJob.Settings.DEFAULT, (browser, js, demo) -> {
            waitFor("the network pane with its links", Duration.ofSeconds(30), () -> count(browser, "#network .half") > 0);
            // One script, so that the pane's refresh (every 2 s) cannot replace the elements between reading and clicking.
            Object answer = js.executeScript("""
                    const hot = document.querySelector('#network .hot');
                    const link = hot.dataset.link;
                    hot.dispatchEvent(new MouseEvent('click', {bubbles: true}));
                    const halves = [...document.querySelectorAll('#network .half')];
                    const selected = halves.filter((h) => h.classList.contains('selected'));
                    const max = Math.max(...halves.map((h) => +h.dataset.bytes));
                    return [link, selected.map((h) => h.dataset.link).join(','),
                            String(Math.max(...selected.map((h) => +h.dataset.bytes))), String(max),
                            String(halves.filter((h) => h.classList.contains('faded')).length),
                            String(document.querySelectorAll('#network .dev.selected').length),
                            document.getElementById('network-selection').textContent];
                    """);
            List<?> got = (List<?>) answer;
            String link = (String) got.get(0);
            assertThat(got.get(1)).as("the two halves of link %s selected", link).isEqualTo(link + "," + link);
            assertThat(Long.parseLong((String) got.get(2))).as("the hottest link's busier half").isEqualTo(Long.parseLong((String) got.get(3)))
                    .isPositive();
            assertThat(Integer.parseInt((String) got.get(4))).as("links touching neither end are faded").isPositive();
            assertThat(got.get(5)).as("its two ends highlighted").isEqualTo("2");
            assertThat((String) got.get(6)).contains(" B");
            // The selection survives the pane's next refresh.
            Thread.sleep(2500);
            assertThat(js.executeScript("return document.getElementById('network').dataset.selected;")).isEqualTo(link);
            screenshot(browser, "dashboard-network.png");
        });
    }

    @Test
    void theDemoPageDrawsTheTreeFindsTheSlowRankAndAnswersAClick() throws Exception {
        withPage(DemoJob.Settings.DEFAULT, (browser, js, demo) -> {

                // The tree: one rank node per rank.
                waitFor("8 rank nodes", Duration.ofSeconds(15), () -> count(browser, "#tree g.node[data-kind='rank']") == 8);

                // The heaviest path ends at the rank made slow (the page shows the tree where it is most decided).
                int slow = demo.settings().slowRank();
                waitFor("the heaviest path to end at rank " + slow, Duration.ofSeconds(30), () ->
                        Boolean.TRUE.equals(js.executeScript("const n = document.querySelector(\"#tree g.node.heavy[data-kind='rank']\");"
                                + " return n != null && n.dataset.rank === '" + slow + "';")));

                // The histogram view updates while the job runs: at least two new rounds drawn within 10 s.
                Set<String> rounds = new LinkedHashSet<>();
                long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (System.nanoTime() - end < 0 && rounds.size() < 3) {
                    Object r = js.executeScript("return document.getElementById('heatmap').dataset.lastRound;");
                    if (r != null && !"-1".equals(r)) {
                        rounds.add(r.toString());
                    }
                    Thread.sleep(200);
                }
                assertThat(rounds).as("histogram rounds drawn in 10 s").hasSizeGreaterThanOrEqualTo(3);

                // Every pane has data now: the README's picture, before a click fades part of the tree.
                readmeScreenshot(browser, js, slow);

                // A click on a gred (a host's own, drawn last: its paths are not all of them): its paths stay lit, the rest
                // fades, and its table shows.
                String gred = clickLast(browser, "#tree g.node[data-kind='gred']");
                waitFor("the side table of " + gred, Duration.ofSeconds(5), () ->
                        gred.equals(browser.findElement(By.id("side")).getAttribute("data-node"))
                                && !browser.findElements(By.id("side-table")).isEmpty());
                assertThat(textOf(browser, By.id("side-title"))).isEqualTo(gred);
                assertThat(textOf(browser, By.id("side-table"))).contains("arrival wait").contains("host");
                assertThat(count(browser, "#tree g.node.selected")).isEqualTo(1);
                assertThat(count(browser, "#tree g.node.faded")).isGreaterThan(0);
                assertThat(count(browser, "#tree path.edge.lit")).isGreaterThan(0);

                // Update latency as the page measured it: sampled → drawn.
                Object late = js.executeScript("return document.body.dataset.lastLatencyMs;");
                System.out.println("dashboard: last frame drawn " + late + " ms after it was sampled");

                screenshot(browser, "dashboard.png");
        });
    }

    /**
     * 256 ranks on 32 hosts: the tree opens with each host folded into one box, a click opens a host, and a frame is
     * drawn in well under the 250 ms between frames (the page stays responsive).
     */
    @Test
    void twoHundredFiftySixRanksFoldByHostAndStayResponsive() throws Exception {
        DemoJob.Settings d = DemoJob.Settings.DEFAULT;
        withPage(new DemoJob.Settings(256, 32, d.tree(), d.slowRank(), d.slowMicros(), 200, d.bins(), d.scopeMs()),
                (browser, js, demo) -> {
            waitFor("32 host boxes", Duration.ofSeconds(30), () -> count(browser, "#tree g.node[data-kind='host']") == 32);
            assertThat(count(browser, "#tree g.node[data-kind='rank']")).isZero();
            // Open host 3 (ranks 24..31).
            for (int attempt = 0; attempt < 20 && count(browser, "#tree g.node[data-kind='rank']") == 0; attempt++) {
                try {
                    browser.findElement(By.cssSelector("#tree g.node[data-kind='host'][data-host='3']")).click();
                } catch (StaleElementReferenceException e) {
                    Thread.sleep(50);
                }
            }
            waitFor("host 3's 8 ranks", Duration.ofSeconds(5), () -> count(browser, "#tree g.node[data-kind='rank']") == 8,
                    () -> "ranks drawn: " + js.executeScript("return [...document.querySelectorAll(\"#tree g.node[data-kind='rank']\")].map(n => n.dataset.rank + '@h' + n.dataset.host).join(' ');"));
            List<Double> draws = new ArrayList<>();
            long end = System.nanoTime() + Duration.ofSeconds(8).toNanos();
            Object frames = js.executeScript("return document.body.dataset.frames;");
            while (System.nanoTime() - end < 0) {
                Object ms = js.executeScript("return document.body.dataset.drawMs;");
                if (ms != null) {
                    draws.add(Double.parseDouble(ms.toString()));
                }
                Thread.sleep(250);
            }
            Object later = js.executeScript("return document.body.dataset.frames;");
            assertThat(Integer.parseInt(later.toString())).as("frames drawn in 8 s").isGreaterThan(Integer.parseInt(frames.toString()));
            draws.sort(null);
            double median = draws.get(draws.size() / 2);
            System.out.println("dashboard, 256 ranks: a frame drawn in " + median + " ms (median of " + draws.size() + " reads)");
            assertThat(median).as("median draw time, ms").isLessThan(200);
            screenshot(browser, "dashboard-256.png");
        });
    }

    /** How long a read or a click may keep finding its element redrawn: on a loaded machine one round trip to the
     * browser can outlast a frame, so a count of attempts was not enough (20 of them failed once in CI). */
    private static final long REDRAWN_FOR_NS = Duration.ofSeconds(15).toNanos();

    /** The text of {@code by} (the side table is redrawn with every frame, so a found element may go stale: find it again). */
    private static String textOf(ChromeDriver browser, By by) throws InterruptedException {
        int attempts = 0;
        for (long end = System.nanoTime() + REDRAWN_FOR_NS; System.nanoTime() - end < 0; attempts++) {
            try {
                return browser.findElement(by).getText();
            } catch (StaleElementReferenceException e) {
                Thread.sleep(20);
            }
        }
        throw new AssertionError("could not read " + by + ": it was redrawn under every one of " + attempts + " attempts");
    }

    private static int count(ChromeDriver browser, String css) {
        return browser.findElements(By.cssSelector(css)).size();
    }

    /** Clicks the last match (the tree is redrawn every frame, so a found element may go stale: find it again). */
    private static String clickLast(ChromeDriver browser, String css) throws InterruptedException {
        int attempts = 0;
        for (long end = System.nanoTime() + REDRAWN_FOR_NS; System.nanoTime() - end < 0; attempts++) {
            try {
                List<WebElement> all = browser.findElements(By.cssSelector(css));
                WebElement e = all.get(all.size() - 1);
                String id = e.getAttribute("data-id");
                e.click();
                return id;
            } catch (StaleElementReferenceException e) {
                Thread.sleep(20);
            }
        }
        throw new AssertionError("could not click " + css + ": it was redrawn under every one of " + attempts + " attempts");
    }

    private static void waitFor(String what, Duration bound, Supplier<Boolean> condition) throws InterruptedException {
        waitFor(what, bound, condition, () -> "");
    }

    private static void waitFor(String what, Duration bound, Supplier<Boolean> condition, Supplier<String> state)
            throws InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() - end < 0) {
            try {
                if (condition.get()) {
                    return;
                }
            } catch (StaleElementReferenceException e) {
                // Redrawn between find and read: look again.
            }
            Thread.sleep(100);
        }
        throw new AssertionError("waited " + bound.toSeconds() + " s for " + what + "; " + state.get());
    }

    private static void deleteQuietly(Path dir) {
        try (var walk = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(walk.toList());
            java.util.Collections.reverse(all);
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        } catch (Exception e) {
            // A temporary profile left behind is harmless.
        }
    }
}
