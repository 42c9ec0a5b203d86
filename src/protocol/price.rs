//! What tokens cost: a price per model, in US dollars per million tokens,
//! for input, output, cache writes and cache reads. The table ships with
//! the current Anthropic and OpenAI models and takes more from `brood.toml`
//! (`[prices."MODEL"]`). A model the table does not know has no price: brood
//! shows its tokens only and never makes one up, so names are matched
//! strictly (a dated or suffixed id of a listed model, never a newer
//! version of it).

use serde::Deserialize;

use crate::event::Usage;

/// US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    /// Writing the prompt cache (Anthropic: 1.25× input for five minutes);
    /// `input` when not given.
    #[serde(default)]
    pub cache_write: Option<f64>,
    /// Reading it (a tenth of input for both providers' current models);
    /// `input` when not given.
    #[serde(default)]
    pub cache_read: Option<f64>,
}

impl Price {
    const fn of(input: f64, output: f64, cache_write: f64, cache_read: f64) -> Price {
        Price {
            input,
            output,
            cache_write: Some(cache_write),
            cache_read: Some(cache_read),
        }
    }

    /// What `usage` cost at this price. `input_tokens` are the uncached ones,
    /// as both providers' usage is read.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let per = |tokens: u64, rate: f64| tokens as f64 * rate / 1_000_000.0;
        per(usage.input_tokens, self.input)
            + per(usage.output_tokens, self.output)
            + per(
                usage.cache_write_tokens,
                self.cache_write.unwrap_or(self.input),
            )
            + per(
                usage.cache_read_tokens,
                self.cache_read.unwrap_or(self.input),
            )
    }
}

/// The models brood knows the price of, as listed by Anthropic and OpenAI
/// (December 2026; Haiku 5.5 at its rate for prompts up to 100k tokens).
/// OpenAI bills no cache writes: a write is input at the input price.
const BUILT_IN: &[(&str, Price)] = &[
    ("claude-fable-5-1", Price::of(10.0, 50.0, 12.5, 0.25)),
    ("claude-mythos-5-1", Price::of(10.0, 50.0, 12.5, 0.25)),
    ("claude-fable-5", Price::of(10.0, 50.0, 12.5, 1.0)),
    ("claude-mythos-5", Price::of(10.0, 50.0, 12.5, 1.0)),
    ("claude-opus-5", Price::of(5.0, 25.0, 6.25, 0.5)),
    ("claude-opus-4-8", Price::of(5.0, 25.0, 6.25, 0.5)),
    ("claude-opus-4-7", Price::of(5.0, 25.0, 6.25, 0.5)),
    ("claude-opus-4-6", Price::of(5.0, 25.0, 6.25, 0.5)),
    ("claude-opus-4-5", Price::of(5.0, 25.0, 6.25, 0.5)),
    ("claude-opus-4-1", Price::of(15.0, 75.0, 18.75, 1.5)),
    ("claude-opus-4", Price::of(15.0, 75.0, 18.75, 1.5)),
    ("claude-sonnet-5-5", Price::of(2.0, 10.0, 2.5, 0.1)),
    ("claude-sonnet-5", Price::of(2.0, 10.0, 2.5, 0.2)),
    ("claude-sonnet-4-6", Price::of(3.0, 15.0, 3.75, 0.3)),
    ("claude-sonnet-4-5", Price::of(3.0, 15.0, 3.75, 0.3)),
    ("claude-sonnet-4", Price::of(3.0, 15.0, 3.75, 0.3)),
    ("claude-3-7-sonnet", Price::of(3.0, 15.0, 3.75, 0.3)),
    ("claude-haiku-5-5", Price::of(0.1, 0.5, 0.125, 0.01)),
    ("claude-haiku-4-5", Price::of(1.0, 5.0, 1.25, 0.1)),
    ("claude-3-5-haiku", Price::of(0.8, 4.0, 1.0, 0.08)),
    ("claude-3-haiku", Price::of(0.25, 1.25, 0.3, 0.03)),
    ("gpt-5", Price::of(1.25, 10.0, 1.25, 0.125)),
    ("gpt-5-mini", Price::of(0.25, 2.0, 0.25, 0.025)),
    ("gpt-5-nano", Price::of(0.05, 0.4, 0.05, 0.005)),
    ("gpt-4-1", Price::of(2.0, 8.0, 2.0, 0.5)),
    ("gpt-4-1-mini", Price::of(0.4, 1.6, 0.4, 0.1)),
    ("gpt-4-1-nano", Price::of(0.1, 0.4, 0.1, 0.025)),
    ("gpt-4o", Price::of(2.5, 10.0, 2.5, 1.25)),
    ("gpt-4o-mini", Price::of(0.15, 0.6, 0.15, 0.075)),
    ("o3", Price::of(2.0, 8.0, 2.0, 0.5)),
    ("o3-mini", Price::of(1.1, 4.4, 1.1, 0.55)),
    ("o4-mini", Price::of(1.1, 4.4, 1.1, 0.275)),
];

/// The built-in prices and the user's, the user's first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable {
    /// The user's prices: each name as written, as [`normalize`]d, and its
    /// price. Normalized once here, not at every look-up: a printer prices
    /// each model step of a session.
    extra: Vec<(String, String, Price)>,
}

impl PriceTable {
    /// The built-in table with `extra` (from `brood.toml`) over it.
    pub fn with(extra: Vec<(String, Price)>) -> PriceTable {
        let extra = extra
            .into_iter()
            .map(|(name, price)| {
                let key = normalize(&name);
                (name, key, price)
            })
            .collect();
        PriceTable { extra }
    }

    /// The price of `model`, if it is known.
    pub fn price(&self, model: &str) -> Option<Price> {
        let wanted = normalize(model);
        // The longest name that fits; of equal ones, the first listed.
        let found = |table: &mut dyn Iterator<Item = (&str, &str, Price)>| {
            let mut best: Option<(usize, Price)> = None;
            for (name, key, price) in table {
                let longer = best.is_none_or(|(len, _)| name.len() > len);
                if longer && names(&wanted, key) {
                    best = Some((name.len(), price));
                }
            }
            best.map(|(_, price)| price)
        };
        found(
            &mut self
                .extra
                .iter()
                .map(|(n, k, p)| (n.as_str(), k.as_str(), *p)),
        )
        // The built-in names are written normalized (a test holds them to it).
        .or_else(|| found(&mut BUILT_IN.iter().map(|&(n, p)| (n, n, p))))
    }

    /// What `usage` on `model` cost, when the model's price is known.
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        self.price(model).map(|p| p.cost(usage))
    }
}

/// `Anthropic/Claude-Sonnet-4.5` and `anthropic.claude-sonnet-4-5-v1:0` as
/// `claude-sonnet-4-5…`: lower case, no provider prefix, dots as dashes.
fn normalize(model: &str) -> String {
    let model = model.trim().to_ascii_lowercase();
    let model = model.rsplit('/').next().unwrap_or(&model);
    let model = model
        .strip_prefix("anthropic.")
        .or_else(|| model.strip_prefix("us.anthropic."))
        .or_else(|| model.strip_prefix("eu.anthropic."))
        .unwrap_or(model);
    model.replace('.', "-")
}

/// Whether `model` is `key` itself, or `key` with a date, `-latest` or a
/// deployment suffix (`@…`, `:…`, `[1m]`, `-v1`); never `key` with more of a
/// version (`claude-opus-4` does not name `claude-opus-4-6`).
fn names(model: &str, key: &str) -> bool {
    let Some(rest) = model.strip_prefix(key) else {
        return false;
    };
    if rest.is_empty() || rest.starts_with(['@', ':', '[']) || rest.starts_with("-latest") {
        return true;
    }
    let Some(rest) = rest.strip_prefix('-') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    // A date (`20250929`, `2024-08-06`), or a provider's revision (`-v1`),
    // not a word that names another model (`-vision`).
    let revision = rest
        .strip_prefix('v')
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    digits >= 4 || revision
}

/// `$0.42`, `$0.0031`, `$12.40`: a cost as people read it.
pub fn usd(cost: f64) -> String {
    match cost {
        c if c >= 1.0 => format!("${c:.2}"),
        c if c >= 0.01 => format!("${c:.3}"),
        c if c > 0.0 => format!("${c:.4}"),
        _ => "$0".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, write: u64, read: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cache_write_tokens: write,
            cache_read_tokens: read,
            reasoning_tokens: 0,
            estimated: false,
        }
    }

    #[test]
    fn ids_as_providers_write_them_find_their_price() {
        let table = PriceTable::default();
        let sonnet = table.price("claude-sonnet-4-5").unwrap();
        for id in [
            "claude-sonnet-4-5-20250929",
            "Claude-Sonnet-4.5",
            "anthropic/claude-sonnet-4.5",
            "anthropic.claude-sonnet-4-5-20250929-v1:0",
            "claude-sonnet-4-5@20250929",
            "claude-sonnet-4-5[1m]",
        ] {
            assert_eq!(table.price(id), Some(sonnet), "{id}");
        }
        assert_eq!(table.price("gpt-4o-2024-08-06"), table.price("gpt-4o"));
        assert_eq!(table.price("gpt-4.1-mini").unwrap().input, 0.4);
        assert_eq!(table.price("claude-opus-4-20250514").unwrap().input, 15.0);
    }

    #[test]
    fn the_built_in_names_are_written_as_they_are_compared() {
        for (name, _) in BUILT_IN {
            assert_eq!(normalize(name), *name);
        }
    }

    #[test]
    fn a_model_the_table_does_not_know_has_no_price() {
        let table = PriceTable::default();
        for id in [
            "claude-opus-4-9",
            "gpt-4o-audio",
            "gpt-5-vision",
            "llama3.1:8b",
            "qwen2.5-coder",
            "",
            "o3x",
        ] {
            assert_eq!(table.price(id), None, "{id}");
        }
    }

    #[test]
    fn costs_add_each_kind_of_token_at_its_rate() {
        let table = PriceTable::default();
        // Sonnet 4.5: 3 in, 15 out, 3.75 write, 0.30 read per million.
        let cost = table
            .cost(
                "claude-sonnet-4-5",
                &usage(1_000_000, 100_000, 200_000, 2_000_000),
            )
            .unwrap();
        assert!((cost - (3.0 + 1.5 + 0.75 + 0.6)).abs() < 1e-9, "{cost}");
    }

    #[test]
    fn the_users_prices_come_first_and_fill_in_unknown_models() {
        let local = Price {
            input: 0.0,
            output: 0.0,
            cache_write: None,
            cache_read: None,
        };
        let dear = Price {
            input: 4.0,
            output: 20.0,
            cache_write: None,
            cache_read: None,
        };
        let table = PriceTable::with(vec![
            ("qwen2.5-coder".into(), local),
            ("claude-sonnet-4-5".into(), dear),
        ]);
        assert_eq!(table.price("qwen2.5-coder:32b"), Some(local));
        assert_eq!(table.price("claude-sonnet-4-5-20250929"), Some(dear));
        // Unset cache rates are the input rate.
        let cost = table
            .cost("claude-sonnet-4-5", &usage(0, 0, 1_000_000, 1_000_000))
            .unwrap();
        assert_eq!(cost, 8.0);
    }

    #[test]
    fn costs_are_written_as_people_read_them() {
        assert_eq!(usd(12.4), "$12.40");
        assert_eq!(usd(0.4217), "$0.422");
        assert_eq!(usd(0.00312), "$0.0031");
        assert_eq!(usd(0.0), "$0");
    }
}
