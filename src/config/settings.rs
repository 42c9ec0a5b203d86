//! Which model brood talks to, resolved in a fixed order: command-line flags, then
//! the environment (`BROOD_*` and the providers' own variables), then the config
//! file; with no provider named anywhere, the provider whose key exists. The
//! environment is passed in as a lookup so the rules are tested without touching
//! the process environment.

use std::str::FromStr;
use std::time::Duration;

use super::FileSettings;
use crate::model::http::HttpConfig;

pub const ANTHROPIC_DEFAULT_URL: &str = "https://api.anthropic.com";
pub const OPENAI_DEFAULT_URL: &str = "https://api.openai.com/v1";
const ANTHROPIC_DEFAULT_MODEL: &str = "claude-sonnet-4-5";
const OPENAI_DEFAULT_MODEL: &str = "gpt-4.1";

/// What to say when no model is configured at all: a few lines of at most 80
/// columns, every way out, the one that needs nothing last.
pub const NO_PROVIDER_HELP: &str = "no model is configured. Set a key, or point brood at Ollama:
  export ANTHROPIC_API_KEY=sk-ant-...
  export OPENAI_API_KEY=sk-...
  export OPENAI_BASE_URL=http://localhost:11434/v1 BROOD_MODEL=qwen2.5-coder
To see brood work now, with no key and no network: brood demo";

/// The last line of every message about a missing key.
const TRY_DEMO: &str = "To see brood work now, with no key and no network: brood demo";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    Anthropic,
    OpenAi,
    /// Replies from a JSON script.
    Scripted,
    /// The no-LLM demo driver.
    Offline,
}

impl ProviderKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai",
            ProviderKind::Scripted => "scripted",
            ProviderKind::Offline => "offline",
        }
    }
}

impl FromStr for ProviderKind {
    type Err = SettingsError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "anthropic" => Ok(ProviderKind::Anthropic),
            "openai" | "ollama" | "vllm" => Ok(ProviderKind::OpenAi),
            "scripted" => Ok(ProviderKind::Scripted),
            "offline" => Ok(ProviderKind::Offline),
            _ => Err(SettingsError::UnknownProvider(s.to_string())),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("{NO_PROVIDER_HELP}")]
    NoProvider,
    #[error("unknown provider {0:?}: use anthropic, openai, scripted or offline")]
    UnknownProvider(String),
    #[error("{provider} needs an API key: export {variable}=...\n{hint}{TRY_DEMO}")]
    MissingKey {
        provider: &'static str,
        variable: &'static str,
        hint: &'static str,
    },
    #[error(
        "name the model to use with --model or BROOD_MODEL (the server at {url} has no default)"
    )]
    NoModel { url: String },
}

/// What the command line said (flags and nothing else).
#[derive(Debug, Clone, Default)]
pub struct ModelFlags {
    pub provider: Option<ProviderKind>,
    pub model: Option<String>,
    pub light_model: Option<String>,
    pub max_retries: Option<u32>,
    pub idle_timeout_secs: Option<u64>,
    pub thinking_budget: Option<u32>,
}

/// The resolved model settings of a session.
#[derive(Debug, Clone)]
pub struct Settings {
    pub provider: ProviderKind,
    pub model: String,
    pub light_model: Option<String>,
    /// Set for the HTTP providers.
    pub http: Option<HttpConfig>,
}

/// Resolves flags, then `env`, then the config file.
pub fn resolve(
    flags: &ModelFlags,
    env: &dyn Fn(&str) -> Option<String>,
    file: &FileSettings,
) -> Result<Settings, SettingsError> {
    let var = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let provider = match flags.provider {
        Some(p) => p,
        None => match var("BROOD_PROVIDER").or_else(|| file.provider.clone()) {
            Some(name) => name.parse()?,
            None if var("ANTHROPIC_API_KEY").is_some() => ProviderKind::Anthropic,
            None if var("OPENAI_API_KEY").is_some() || var("OPENAI_BASE_URL").is_some() => {
                ProviderKind::OpenAi
            }
            None => return Err(SettingsError::NoProvider),
        },
    };
    let model = flags
        .model
        .clone()
        .or_else(|| var("BROOD_MODEL"))
        .or_else(|| file.model.clone());
    let light_model = flags
        .light_model
        .clone()
        .or_else(|| var("BROOD_LIGHT_MODEL"))
        .or_else(|| file.light_model.clone());
    let (http, model) = match provider {
        ProviderKind::Scripted | ProviderKind::Offline => {
            (None, model.unwrap_or_else(|| provider.as_str().to_string()))
        }
        ProviderKind::Anthropic => {
            let url = var("ANTHROPIC_BASE_URL").unwrap_or_else(|| ANTHROPIC_DEFAULT_URL.into());
            let key = var("ANTHROPIC_API_KEY");
            if key.is_none() && is_default(&url, ANTHROPIC_DEFAULT_URL) {
                return Err(SettingsError::MissingKey {
                    provider: "anthropic",
                    variable: "ANTHROPIC_API_KEY",
                    hint: "",
                });
            }
            let model = model.unwrap_or_else(|| ANTHROPIC_DEFAULT_MODEL.into());
            (Some(HttpConfig::new(&url, key)), model)
        }
        ProviderKind::OpenAi => {
            let url = var("OPENAI_BASE_URL").unwrap_or_else(|| OPENAI_DEFAULT_URL.into());
            let key = var("OPENAI_API_KEY");
            let official = is_default(&url, OPENAI_DEFAULT_URL);
            if key.is_none() && official {
                return Err(SettingsError::MissingKey {
                    provider: "openai",
                    variable: "OPENAI_API_KEY",
                    hint: "A local server such as Ollama needs no key: set OPENAI_BASE_URL.\n",
                });
            }
            let model = match (model, official) {
                (Some(m), _) => m,
                (None, true) => OPENAI_DEFAULT_MODEL.into(),
                (None, false) => return Err(SettingsError::NoModel { url }),
            };
            (Some(HttpConfig::new(&url, key)), model)
        }
    };
    let http = http.map(|mut config| {
        if let Some(n) = flags.max_retries.or(file.max_retries) {
            config.max_retries = n;
        }
        if let Some(secs) = flags.idle_timeout_secs.or(file.idle_timeout_secs) {
            config.idle_timeout = Duration::from_secs(secs.max(1));
        }
        if let Some(secs) = file.connect_timeout_secs {
            config.connect_timeout = Duration::from_secs(secs.max(1));
        }
        if let Some(secs) = file.header_timeout_secs {
            config.header_timeout = Duration::from_secs(secs.max(1));
        }
        if let Some(secs) = file.max_response_secs {
            config.max_response_time = Duration::from_secs(secs.max(1));
        }
        if let Some(mb) = file.max_response_mb {
            config.max_response_bytes = mb.max(1) << 20;
        }
        let cache_off = var("BROOD_PROMPT_CACHE")
            .map(|v| matches!(v.trim(), "0" | "off" | "false" | "no"))
            .or(file.prompt_cache.map(|on| !on))
            .unwrap_or(false);
        if cache_off {
            config.prompt_cache = crate::model::http::PromptCache::Off;
        }
        config.thinking_budget = flags
            .thinking_budget
            .or(file.thinking_budget)
            .filter(|n| *n > 0);
        config
    });
    Ok(Settings {
        provider,
        model,
        light_model,
        http,
    })
}

fn is_default(url: &str, default: &str) -> bool {
    url.trim_end_matches('/') == default
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn flags() -> ModelFlags {
        ModelFlags::default()
    }

    #[test]
    fn the_provider_is_detected_from_the_key_that_exists() {
        let s = resolve(
            &flags(),
            &env(&[("ANTHROPIC_API_KEY", "k1")]),
            &FileSettings::default(),
        )
        .unwrap();
        assert_eq!(s.provider, ProviderKind::Anthropic);
        assert_eq!(s.model, "claude-sonnet-4-5");
        let http = s.http.unwrap();
        assert_eq!(http.base_url, "https://api.anthropic.com");
        assert_eq!(http.api_key.as_deref(), Some("k1"));
        let s = resolve(
            &flags(),
            &env(&[("OPENAI_API_KEY", "k2")]),
            &FileSettings::default(),
        )
        .unwrap();
        assert_eq!(s.provider, ProviderKind::OpenAi);
        assert_eq!(s.model, "gpt-4.1");
    }

    #[test]
    fn with_nothing_set_the_help_offers_every_way_out() {
        let err = resolve(
            &flags(),
            &env(&[("ANTHROPIC_API_KEY", " ")]),
            &FileSettings::default(),
        )
        .unwrap_err()
        .to_string();
        for needle in [
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "Ollama",
            "OPENAI_BASE_URL",
            "brood demo",
        ] {
            assert!(err.contains(needle), "{needle} missing from: {err}");
        }
        assert!(err.lines().count() <= 5, "a few lines: {err}");
        // Printed as `brood: ` and the message: 80 columns at most.
        let printed = format!("brood: {err}");
        assert!(printed.lines().all(|l| l.len() <= 80), "{printed}");
        assert!(err.ends_with("brood demo"), "{err}");
    }

    #[test]
    fn flags_beat_environment_which_beats_the_file() {
        let file = FileSettings {
            provider: Some("openai".into()),
            model: Some("file-model".into()),
            light_model: Some("file-light".into()),
            max_retries: Some(7),
            ..FileSettings::default()
        };
        let e = env(&[
            ("BROOD_PROVIDER", "anthropic"),
            ("BROOD_MODEL", "env-model"),
            ("ANTHROPIC_API_KEY", "k"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/"),
        ]);
        let s = resolve(&flags(), &e, &file).unwrap();
        assert_eq!(s.provider, ProviderKind::Anthropic);
        assert_eq!(s.model, "env-model");
        assert_eq!(s.light_model.as_deref(), Some("file-light"));
        let http = s.http.unwrap();
        assert_eq!(http.base_url, "http://127.0.0.1:9");
        assert_eq!(http.max_retries, 7);
        assert_eq!(http.header_timeout, Duration::from_secs(60), "the default");
        let limits = FileSettings {
            header_timeout_secs: Some(5),
            max_response_secs: Some(30),
            max_response_mb: Some(2),
            ..file.clone()
        };
        let http = resolve(&flags(), &e, &limits).unwrap().http.unwrap();
        assert_eq!(http.header_timeout, Duration::from_secs(5));
        assert_eq!(http.max_response_time, Duration::from_secs(30));
        assert_eq!(http.max_response_bytes, 2 << 20);
        let f = ModelFlags {
            provider: Some(ProviderKind::Scripted),
            model: Some("flag-model".into()),
            light_model: Some("flag-light".into()),
            max_retries: Some(1),
            idle_timeout_secs: Some(5),
            thinking_budget: None,
        };
        let s = resolve(&f, &e, &file).unwrap();
        assert_eq!(
            (s.provider, s.model.as_str()),
            (ProviderKind::Scripted, "flag-model")
        );
        assert_eq!(s.light_model.as_deref(), Some("flag-light"));
        assert!(s.http.is_none());
    }

    #[test]
    fn keys_are_required_only_where_the_server_needs_one() {
        let f = ModelFlags {
            provider: Some(ProviderKind::Anthropic),
            ..flags()
        };
        let err = resolve(&f, &env(&[]), &FileSettings::default()).unwrap_err();
        assert!(err.to_string().contains("ANTHROPIC_API_KEY"));
        let f = ModelFlags {
            provider: Some(ProviderKind::OpenAi),
            ..flags()
        };
        let err = resolve(&f, &env(&[]), &FileSettings::default()).unwrap_err();
        assert!(err.to_string().contains("OPENAI_BASE_URL"), "{err}");
        // A local Ollama needs no key, but a model name.
        let ollama = env(&[("OPENAI_BASE_URL", "http://localhost:11434/v1")]);
        let err = resolve(&f, &ollama, &FileSettings::default()).unwrap_err();
        assert!(matches!(err, SettingsError::NoModel { .. }), "{err}");
        let f = ModelFlags {
            model: Some("qwen2.5-coder".into()),
            ..f
        };
        let s = resolve(&f, &ollama, &FileSettings::default()).unwrap();
        assert_eq!(s.http.unwrap().api_key, None);
        // Provider detected from the base URL alone.
        let s = resolve(
            &ModelFlags {
                model: Some("m".into()),
                ..flags()
            },
            &ollama,
            &FileSettings::default(),
        )
        .unwrap();
        assert_eq!(s.provider, ProviderKind::OpenAi);
    }

    #[test]
    fn provider_names_parse_and_unknown_ones_are_named() {
        assert_eq!(
            "Ollama".parse::<ProviderKind>().unwrap(),
            ProviderKind::OpenAi
        );
        let err = "gemini".parse::<ProviderKind>().unwrap_err().to_string();
        assert!(err.contains("gemini") && err.contains("anthropic"), "{err}");
    }
}
