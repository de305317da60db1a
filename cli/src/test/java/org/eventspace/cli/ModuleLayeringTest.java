package org.eventspace.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The module table of docs/ARCHITECTURE.md is the build's law: each row's "may use" column names the modules whose
 * classes that module's main code may use, no more and no fewer than its pom declares, and no class of a module depends
 * on a class of a module its row does not name (ArchUnit, over the compiled main classes of every module, which cli's
 * test class path holds). Source code reaches another module through imports only, never a fully qualified name, so
 * what a file uses is in its first lines.
 */
class ModuleLayeringTest {
    private static final Path ROOT = Repository.root();
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z]+)`[^|]*\\|[^|]*\\|([^|]*)\\|\\s*$");
    private static final Pattern NAME = Pattern.compile("`([a-z]+)`");
    private static Map<String, Set<String>> table;
    private static JavaClasses classes;

    @BeforeAll
    static void readTableAndClasses() throws IOException {
        table = moduleTable();
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.eventspace");
    }

    /** The rows of the "## Modules" table: module → the modules it may use. */
    static Map<String, Set<String>> moduleTable() throws IOException {
        Map<String, Set<String>> rows = new TreeMap<>();
        boolean inModules = false;
        for (String line : Files.readAllLines(ROOT.resolve("docs/ARCHITECTURE.md"))) {
            if (line.startsWith("## ")) {
                inModules = line.equals("## Modules");
                continue;
            }
            Matcher row = ROW.matcher(line);
            if (inModules && row.matches()) {
                Set<String> uses = new TreeSet<>();
                Matcher name = NAME.matcher(row.group(2));
                while (name.find()) {
                    uses.add(name.group(1));
                }
                rows.put(row.group(1), uses);
            }
        }
        return rows;
    }

    /** The modules the parent pom builds. */
    static List<String> modules() throws Exception {
        NodeList list = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(ROOT.resolve("pom.xml").toFile())
                .getElementsByTagName("module");
        List<String> modules = new ArrayList<>();
        for (int i = 0; i < list.getLength(); i++) {
            modules.add(list.item(i).getTextContent().trim());
        }
        return modules;
    }

    /** A module's declared compile dependencies on other modules of ours (not test or runtime: code cannot use those). */
    static Set<String> declared(String module) throws Exception {
        NodeList deps = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(ROOT.resolve(module).resolve("pom.xml").toFile()).getElementsByTagName("dependency");
        Set<String> ours = new TreeSet<>();
        for (int i = 0; i < deps.getLength(); i++) {
            Element dep = (Element) deps.item(i);
            String artifact = dep.getElementsByTagName("artifactId").item(0).getTextContent().trim();
            NodeList scope = dep.getElementsByTagName("scope");
            boolean compile = scope.getLength() == 0 || scope.item(0).getTextContent().trim().equals("compile");
            if (artifact.startsWith("eventspace-") && compile) {
                ours.add(artifact.substring("eventspace-".length()));
            }
        }
        return ours;
    }

    @Test
    void everyModuleHasARowAndEveryRowIsAModule() throws Exception {
        assertThat(table.keySet()).containsExactlyInAnyOrderElementsOf(modules());
    }

    @Test
    void eachRowNamesExactlyTheModulesItsPomDeclares() throws Exception {
        for (String module : modules()) {
            assertThat(declared(module)).as("%s/pom.xml against its row in docs/ARCHITECTURE.md", module)
                    .isEqualTo(table.get(module));
        }
    }

    @Test
    void noModuleUsesAClassOfAModuleItsRowDoesNotName() {
        for (Map.Entry<String, Set<String>> row : table.entrySet()) {
            String[] forbidden = table.keySet().stream()
                    .filter(m -> !m.equals(row.getKey()) && !row.getValue().contains(m))
                    .map(m -> "org.eventspace." + m + "..").toArray(String[]::new);
            if (forbidden.length == 0) {
                continue;
            }
            noClasses().that().resideInAPackage("org.eventspace." + row.getKey() + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(forbidden)
                    .because("docs/ARCHITECTURE.md: " + row.getKey() + " may use " + row.getValue())
                    .check(classes);
        }
    }

    @Test
    void theLayersHaveNoCycle() {
        com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices().matching("org.eventspace.(*)..")
                .should().beFreeOfCycles().check(classes);
    }

    /** {@code org.eventspace.x.Y} in code, outside imports, comments and strings. */
    private static final Pattern QUALIFIED = Pattern.compile("\\borg\\.eventspace\\.([a-z]+)\\.(?:[a-z]\\w*\\.)*[A-Z]");

    @Test
    void codeReachesAnotherModuleThroughImportsOnly() throws Exception {
        List<String> found = new ArrayList<>();
        for (String module : modules()) {
            Path main = ROOT.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(main)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(main)) {
                for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    String code = JavaSource.code(Files.readString(file));
                    String[] lines = code.split("\n", -1);
                    for (int i = 0; i < lines.length; i++) {
                        if (lines[i].startsWith("import ") || lines[i].startsWith("package ")) {
                            continue;
                        }
                        Matcher m = QUALIFIED.matcher(lines[i]);
                        while (m.find()) {
                            if (!m.group(1).equals(module)) {
                                found.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + lines[i].trim());
                            }
                        }
                    }
                }
            }
        }
        assertThat(found).as("fully qualified names reaching another module (import the class instead)").isEmpty();
    }
}
