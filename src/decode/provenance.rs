//! Where a point's run is recorded: links from either schema generation.

use super::model::Provenance;
use crate::data::{AgentxData, Cell, Point};

/// Links for one point, from whichever schema the file uses.
pub(crate) fn provenance(data: &AgentxData, cell: &Cell, point: &Point) -> Provenance {
    let repo = data
        .source
        .as_ref()
        .map(|s| s.repo.trim_end_matches('/').to_string());
    let mut p = Provenance {
        config_key: cell.config_key.clone(),
        override_name: point.override_name.clone(),
        ..Provenance::default()
    };
    if let Some(prov) = &cell.prov {
        p.pr = prov.pr.clone();
        p.sha = prov.sha.clone();
        p.date = prov.date.clone();
        if let Some(repo) = &repo {
            let pr_run = prov.pr.as_ref().and_then(|pr| {
                data.source
                    .as_ref()
                    .and_then(|s| s.prs.get(pr))
                    .and_then(|i| i.run.clone())
            });
            p.run_url = prov
                .run
                .as_ref()
                .map(|r| format!("{repo}/actions/runs/{r}"))
                .or(pr_run);
            p.pr_url = prov.pr.as_ref().map(|pr| format!("{repo}/pull/{pr}"));
            p.comment_url = match (&prov.pr, &prov.comment) {
                (Some(pr), Some(c)) => Some(format!("{repo}/pull/{pr}#issuecomment-{c}")),
                _ => None,
            };
            p.job_url = point
                .job
                .as_ref()
                .map(|j| format!("{repo}/actions/runs/{j}"));
            let recipe = point.recipe.as_ref().or(prov.recipe.as_ref());
            p.recipe_url = match (recipe, &prov.sha) {
                (Some(r), Some(sha)) => Some(format!("{repo}/blob/{sha}/{r}")),
                _ => None,
            };
        }
    } else {
        p.pr = point.pr.clone();
        p.sha = point.sha.clone();
        p.date = point.date.clone();
        p.run_url = point.run_url.clone();
        p.pr_url = point.pr_url.clone();
        p.comment_url = point.use_comment.clone();
        p.job_url = point.job_url.clone();
        p.recipe_url = point.recipe_url.clone();
    }
    p
}
