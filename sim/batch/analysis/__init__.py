"""What a study's runs say: the summary, comparisons, pooled rates, sensitivity indices."""
