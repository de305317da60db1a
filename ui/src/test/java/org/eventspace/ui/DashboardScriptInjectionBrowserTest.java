package org.eventspace.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Supplier;

import org.eventspace.base.json.Json;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A hostile user's files in a real browser (headless Chromium, as {@link DashboardBrowserTest}): a run report with
 * markup that would run script in every string field the reader takes ({@link CraftedRuns}), given under a file name that
 * is markup, drawn by {@code report A B} (with a network whose device names are markup) and by the live dashboard (whose
 * topology's device names are markup, and whose "two finished runs" pane is given the crafted files). Each page must
 * raise no alert, hold no element the payloads would make (no {@code img}, no script beyond the page's own), and show
 * every payload as the text it is. Skipped where Chromium is missing, except under CI.
 */
@Timeout(120)
class DashboardScriptInjectionBrowserTest {
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final java.util.logging.Logger SELENIUM = java.util.logging.Logger.getLogger("org.openqa.selenium");

    static {
        SELENIUM.setLevel(java.util.logging.Level.SEVERE);
    }

    interface PageCheck {
        void check(ChromeDriver browser, JavascriptExecutor js) throws Exception;
    }

    private static void withBrowser(PageCheck check) throws Exception {
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
        try {
            ChromeDriver browser = new ChromeDriver(service, options);
            try {
                browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30)).scriptTimeout(Duration.ofSeconds(10));
                check.check(browser, browser);
            } finally {
                browser.quit();
                service.stop();
            }
        } finally {
            deleteQuietly(profile);
        }
    }

    /**
     * No payload ran or became an element: no alert is open (checked first: an open alert would fail any script), no
     * {@code img} anywhere, no script but the page's own, and both payloads are in the page's text.
     */
    private static void assertNothingRan(ChromeDriver browser, JavascriptExecutor js, long pageScripts) {
        assertThatThrownBy(() -> browser.switchTo().alert()).as("an alert raised by a payload")
                .isInstanceOf(NoAlertPresentException.class);
        assertThat((Long) js.executeScript("return document.querySelectorAll('img').length;")).as("img elements").isZero();
        assertThat((Long) js.executeScript("return document.querySelectorAll('script').length;")).as("script elements")
                .isEqualTo(pageScripts);
        String text = (String) js.executeScript("return document.body.innerText;");
        assertThat(text).as("the page's text").contains(CraftedRuns.IMG).contains(CraftedRuns.SCRIPT);
    }

    /**
     * {@code report A B --network}: both runs crafted, A's file name is markup; the page's own scripts run (its policy
     * lists their hashes: the frame is drawn), the payloads do not, and the comparison, the verdict, the title and the
     * network's selection show them as text.
     */
    @Test
    void aCraftedReportAndFileNameRunNoScriptInTheReportPage() throws Exception {
        ObjectNode run = CraftedRuns.mpiRun();
        String page = RunReportPage.html(CraftedRuns.FILE_NAME, run, CraftedRuns.SCRIPT + ".json", run, CraftedRuns.network());
        Path dir = Files.createTempDirectory("es-xss-");
        try {
            Path file = dir.resolve("report.html");
            Files.writeString(file, page, StandardCharsets.UTF_8);
            withBrowser((browser, js) -> {
                browser.get(file.toUri().toString());
                waitFor("the page's script to draw the frame", Duration.ofSeconds(20),
                        () -> "1".equals(js.executeScript("return document.body.dataset.frames || '';")));
                assertThat(browser.getTitle()).isEqualTo("EventSpace report: " + CraftedRuns.FILE_NAME + " vs "
                        + CraftedRuns.SCRIPT + ".json");
                String compare = browser.findElement(By.id("compare")).getText();
                assertThat(compare).contains("A: " + CraftedRuns.FILE_NAME).contains(CraftedRuns.IMG);
                assertThat(browser.findElement(By.id("verdict-panel")).getText()).contains(CraftedRuns.IMG);
                // The run's errors, drawn by the page's script into the verdict pane.
                assertThat(browser.findElement(By.id("verdict-errors")).getText()).contains("error: ").contains(CraftedRuns.IMG);
                // The network drawn inline, its click handled by the page's script.
                js.executeScript("document.querySelector('#network .hot').dispatchEvent(new MouseEvent('click', {bubbles: true}));");
                assertThat(browser.findElement(By.id("network-selection")).getText())
                        .contains(CraftedRuns.IMG + " → " + CraftedRuns.SCRIPT);
                assertNothingRan(browser, js, 2);
            });
        } finally {
            deleteQuietly(dir);
        }
    }

    /**
     * The live dashboard, bound beyond loopback (so the page is opened with its token, which it keeps for its own
     * requests): a topology whose device names are markup, selected by a click; then the crafted run chosen as both
     * files of "two finished runs", whose gred and contributor are markup too.
     */
    @Test
    void aCraftedTopologyAndRunFilesRunNoScriptInTheLiveDashboard() throws Exception {
        ObjectNode run = CraftedRuns.mpiRun();
        Path dir = Files.createTempDirectory("es-xss-");
        Path fileA = dir.resolve(CraftedRuns.FILE_NAME);
        Path fileB = dir.resolve("b.json");
        JsonNode withGred = CraftedRuns.withWrappers(run);
        Files.writeString(fileA, Json.mapper().writeValueAsString(withGred), StandardCharsets.UTF_8);
        Files.writeString(fileB, Json.mapper().writeValueAsString(withGred), StandardCharsets.UTF_8);
        try (DashboardServer server = DashboardServer.start(CraftedRuns.liveSource(CraftedRuns.FILE_NAME, run), "0.0.0.0", 0,
                250)) {
            assertThat(server.url()).contains("?token=" + server.token());
            withBrowser((browser, js) -> {
                browser.get(server.url());
                waitFor("the network pane with its links", Duration.ofSeconds(30),
                        () -> ((Long) js.executeScript("return document.querySelectorAll('#network .half').length;")) > 0);
                assertThat(browser.findElement(By.id("run-name")).getText()).isEqualTo(CraftedRuns.FILE_NAME);
                js.executeScript("document.querySelector('#network .hot').dispatchEvent(new MouseEvent('click', {bubbles: true}));");
                assertThat(browser.findElement(By.id("network-selection")).getText())
                        .contains(CraftedRuns.IMG + " → " + CraftedRuns.SCRIPT);
                browser.findElement(By.id("file-a")).sendKeys(fileA.toString());
                browser.findElement(By.id("file-b")).sendKeys(fileB.toString());
                waitFor("the comparison of the two files", Duration.ofSeconds(10),
                        () -> !browser.findElements(By.id("compare-table")).isEmpty());
                String compare = browser.findElement(By.id("compare-table")).getText();
                assertThat(compare).contains("A: " + CraftedRuns.FILE_NAME)
                        .contains(CraftedRuns.IMG + " port 0 (" + CraftedRuns.SCRIPT + ") arrival wait");
                assertNothingRan(browser, js, 1);
            });
        } finally {
            deleteQuietly(dir);
        }
    }

    private static void waitFor(String what, Duration bound, Supplier<Boolean> condition) throws InterruptedException {
        long end = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() - end < 0) {
            try {
                if (Boolean.TRUE.equals(condition.get())) {
                    return;
                }
            } catch (StaleElementReferenceException e) {
                // Redrawn between find and read: look again.
            }
            Thread.sleep(100);
        }
        throw new AssertionError("waited " + bound.toSeconds() + " s for " + what);
    }

    private static void deleteQuietly(Path dir) {
        try (var walk = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(walk.toList());
            Collections.reverse(all);
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        } catch (Exception e) {
            // A temporary folder left behind is harmless.
        }
    }
}
