//! Mapping work over the machine's cores with scoped threads, in order.

use std::sync::Mutex;

use anyhow::Result;

/// How many threads to use for `jobs` items.
pub(crate) fn workers_for(jobs: usize) -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(jobs)
        .max(1)
}

/// Maps owned items on all cores, keeping their order; the first error in
/// item order wins. Each item is dropped as soon as `f` returns, so a caller
/// can hand over large inputs (chapter Markdown) and have them freed as the
/// work proceeds.
pub(crate) fn map_owned<T: Send, R: Send>(
    items: Vec<T>,
    f: impl Fn(usize, T) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let n = items.len();
    let workers = workers_for(n);
    if workers <= 1 {
        return items
            .into_iter()
            .enumerate()
            .map(|(i, t)| f(i, t))
            .collect();
    }
    // Each thread takes the next item when it is free, rather than a fixed
    // share: pages differ a lot in cost (a deployment page of 400 KiB; the
    // first block of a language compiles its grammar, 90 ms for Markdown).
    let queue = Mutex::new(items.into_iter().enumerate());
    let next = || queue.lock().expect("queue lock").next();
    let (f, next) = (&f, &next);
    let results: Vec<Vec<(usize, Result<R>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(move || {
                    let mut done = Vec::new();
                    while let Some((i, t)) = next() {
                        done.push((i, f(i, t)));
                    }
                    done
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(v) => v,
                // Keep the worker's panic message rather than inventing one.
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    let mut slots: Vec<Option<Result<R>>> = (0..n).map(|_| None).collect();
    for (i, r) in results.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots
        .into_iter()
        .map(|r| r.expect("every item mapped"))
        .collect()
}

/// [`map_owned`] over borrowed items.
pub(crate) fn map<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    map_owned(items.iter().collect(), |_, t| f(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_reports_the_first_error_in_item_order() {
        let v: Vec<usize> = (0..100).collect();
        let doubled = map(&v, |x| Ok(x * 2)).unwrap();
        assert_eq!(doubled, (0..100).map(|x| x * 2).collect::<Vec<_>>());
        let err = map(&v, |&x| {
            if x % 30 == 29 {
                anyhow::bail!("item {x}")
            }
            Ok(x)
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "item 29");
        assert!(map(&Vec::<u8>::new(), |x| Ok(*x)).unwrap().is_empty());
        let owned = map_owned(vec![String::from("a"), String::from("bc")], |i, s| {
            Ok((i, s.len()))
        });
        assert_eq!(owned.unwrap(), vec![(0, 1), (1, 2)]);
    }
}
