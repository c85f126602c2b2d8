"""Exploratory probe, not a shipped detector: does a learned sentence classifier generalise to injection
phrasings it never saw, where the model-free rules (``rag_agent/judges/model_free/injection.py``)
do not (confirm catch 15 %)?

Trained on the *tune* half only: the 180 tune injected sentences against ~14k sentences of tune clean,
benign and dev items and of tune EVOUNA/BEGIN texts; word 1-2-grams and character 2-5-grams (TF-IDF),
logistic regression (balanced classes). The threshold is a quantile of its score on 3,000 tune dev texts.
Then scored once on the confirm half (injected items: catch; clean, benign and dev items of the set and
3,000 confirm dev texts: false alarms). Needs scikit-learn; no model server.

    python bench/injection/learned_probe.py
"""
import json, re, sys, random
import numpy as np
sys.path.insert(0, str(__import__('pathlib').Path(__file__).resolve().parents[1]))
from splits import BENCHMARKS, half_of
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from scipy.sparse import hstack

rows=[json.loads(l) for l in open(str(__import__('pathlib').Path(__file__).resolve().parents[1] / 'data' / 'injection-set.jsonl'))]
def text_of(r):
    return r.get('answer') or r.get('passage') or ''
def sents(t):
    return [s for s in re.split(r'(?<=[.!?])\s+|\n+', t) if s.strip()]
pos=[r['injection']['sentence'] for r in rows if r['half']=='tune' and r['variant']=='injected']
neg=[]
for r in rows:
    if r['half']=='tune' and r['variant'] in ('clean','dev','benign'):
        neg+=sents(text_of(r))
# dev texts (tune half) from the datasets
def dev_texts(half):
    out=[]
    for l in open(BENCHMARKS/'evouna-nq'/'correctness.jsonl'):
        o=json.loads(l)
        if half_of('evouna-nq',o)==half: out.append(o['answer'])
    for l in open(BENCHMARKS/'begin-dev'/'faithfulness.jsonl'):
        o=json.loads(l)
        if half_of('begin-dev',o)==half: out.append(o['answer']); out.append(o['context'])
    return out
dt=dev_texts('tune'); dc=dev_texts('confirm')
random.seed(0)
for t in random.sample(dt, min(6000,len(dt))): neg+=sents(t)
print(len(pos), len(neg))
w=TfidfVectorizer(analyzer='word', ngram_range=(1,2), min_df=1, sublinear_tf=True, lowercase=True)
c=TfidfVectorizer(analyzer='char_wb', ngram_range=(2,5), min_df=2, sublinear_tf=True, lowercase=True, max_features=200000)
X=pos+neg; y=np.array([1]*len(pos)+[0]*len(neg))
Xw=w.fit_transform(X); Xc=c.fit_transform(X)
M=hstack([Xw,Xc]).tocsr()
lr=LogisticRegression(C=10, class_weight='balanced', max_iter=2000).fit(M,y)
def score_text(t):
    ss=sents(t) or [t]
    m=hstack([w.transform(ss), c.transform(ss)]).tocsr()
    return lr.predict_proba(m)[:,1].max()
# threshold: on tune clean dev texts (held-out portion of dt not used) <=0.5% FA
rest=[t for t in dt if t not in set()]  # includes training ones; use random other sample
cal=random.sample(dt, 3000)
sc=np.array([score_text(t) for t in cal])
for q in (0.995, 0.998, 0.999):
    th=np.quantile(sc, q)
    inj=[r for r in rows if r['half']=='confirm' and r['variant']=='injected']
    caught=np.mean([score_text(text_of(r))>th for r in inj])
    kinds={}
    for r in inj:
        k=r['injection']['kind']; kinds.setdefault(k,[]).append(score_text(text_of(r))>th)
    clean=[r for r in rows if r['half']=='confirm' and r['variant'] in ('clean','benign','dev')]
    fa=np.mean([score_text(text_of(r))>th for r in clean])
    fad=np.mean([score_text(t)>th for t in random.sample(dc,3000)])
    print(q, round(th,3), 'catch', round(caught,3), {k:f"{sum(v)}/{len(v)}" for k,v in kinds.items()}, 'fa set', round(fa,3), 'fa dev', round(fad,4))
