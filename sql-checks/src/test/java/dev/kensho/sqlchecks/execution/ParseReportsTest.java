package dev.kensho.sqlchecks.execution;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a reported tree names a setting that delivers the reports ({@link ParseReports#treeNames}). */
class ParseReportsTest {

    @Test
    void setConfigByItsOidIsSeenWhereverTheServerBrokeTheLine() {
        assertTrue(ParseReports.treeNames("{FUNCEXPR :funcid 2078 :funcresulttype 25 :funcretset false"));
        // format_node_dump breaks a long tree's lines at a blank, between a field's name and its value too.
        assertTrue(ParseReports.treeNames("{FUNCEXPR :funcid\n2078 :funcresulttype 25"));
        assertTrue(ParseReports.treeNames("{FUNCEXPR :funcid 2078\n:funcresulttype 25"));
        assertFalse(ParseReports.treeNames("{FUNCEXPR :funcid 20780 :funcresulttype 25"));
        assertFalse(ParseReports.treeNames("{FUNCEXPR :funcid 12078 :funcresulttype 25"));
    }

    @Test
    void theSettingsAreSeenByName() {
        assertTrue(ParseReports.treeNames("{VARIABLESETSTMT :kind 0 :name client_min_messages :args"));
        assertFalse(ParseReports.treeNames("{VARIABLESETSTMT :kind 0 :name work_mem :args"));
    }
}
